/** GET /api/vendors: each vendor's steering profile (delivery moments, cap, session end, permission moments). */
import { vendorProfiles } from './index';
import type { ApiHandlers } from '../api/index';

/** The vendors route. */
export function vendorsApi(): ApiHandlers {
  return { 'GET /api/vendors': { handle: () => vendorProfiles() } };
}
