/** GET /api/vendors: each vendor's steering profile (delivery moments, cap, session end, permission moments). */
import { vendorProfiles } from '../agents/vendors/index';
import type { ApiHandlers } from './index';

/** The vendors route. */
export function vendorsApi(): ApiHandlers {
  return { 'GET /api/vendors': { handle: () => vendorProfiles() } };
}
