/** True when `order` names every one of `ids` exactly once: a reordering of them. */
export function isReorderOf(order: readonly string[], ids: { readonly size: number; has(id: string): boolean }): boolean {
  return order.length === ids.size && new Set(order).size === order.length && order.every((id) => ids.has(id));
}
