/** Preload bootstrap (placeholder). */
export {};
