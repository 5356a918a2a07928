// Draws the app icon (resources/icon.png, 512x512) and the tray status icons
// (resources/tray/{idle,active,attention}[-32][@2x].png) with a tiny PNG encoder on node:zlib, so
// the icons are reproducible from source: `node scripts/make-icons.mjs`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** RGBA pixels (Float64 0..1, premultiplied-free) → PNG bytes. */
function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size * 4; x++) raw[y * (size * 4 + 1) + 1 + x] = Math.round(Math.min(1, Math.max(0, rgba[y * size * 4 + x])) * 255);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const hex = (h) => [parseInt(h.slice(1, 3), 16) / 255, parseInt(h.slice(3, 5), 16) / 255, parseInt(h.slice(5, 7), 16) / 255];

/**
 * Renders shapes given as signed distance functions in a unit square (0..1), 4x4 supersampled,
 * painted in order with "over" compositing.
 */
function render(size, layers) {
  const out = new Float64Array(size * size * 4);
  const n = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const u = (x + (sx + 0.5) / n) / size;
          const v = (y + (sy + 0.5) / n) / size;
          let pr = 0, pg = 0, pb = 0, pa = 0;
          for (const layer of layers) {
            if (layer.sdf(u, v) > 0) continue;
            const [cr, cg, cb] = typeof layer.color === 'function' ? layer.color(u, v) : layer.color;
            const la = layer.alpha ?? 1;
            pr = cr * la + pr * (1 - la);
            pg = cg * la + pg * (1 - la);
            pb = cb * la + pb * (1 - la);
            pa = la + pa * (1 - la);
          }
          r += pr; g += pg; b += pb; a += pa;
        }
      }
      const s = n * n;
      const i = (y * size + x) * 4;
      // Un-premultiply the averaged colour so edges keep their hue.
      out[i] = a > 0 ? r / a : 0;
      out[i + 1] = a > 0 ? g / a : 0;
      out[i + 2] = a > 0 ? b / a : 0;
      out[i + 3] = a / s;
    }
  }
  return out;
}

const circle = (cx, cy, rad) => (u, v) => Math.hypot(u - cx, v - cy) - rad;
const ring = (cx, cy, rad, width) => (u, v) => Math.abs(Math.hypot(u - cx, v - cy) - rad) - width / 2;
const roundedSquare = (inset, radius) => (u, v) => {
  const half = 0.5 - inset - radius;
  const dx = Math.max(Math.abs(u - 0.5) - half, 0);
  const dy = Math.max(Math.abs(v - 0.5) - half, 0);
  return Math.hypot(dx, dy) - radius;
};
const rect = (x0, y0, x1, y1) => (u, v) => Math.max(x0 - u, u - x1, y0 - v, v - y1);
/** A chevron pointing right (the "steer" mark): two thick strokes meeting at the tip. */
const chevron = (cx, cy, w, h, thick) => {
  const seg = (ax, ay, bx, by) => (u, v) => {
    const px = u - ax, py = v - ay, dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - t * dx, py - t * dy) - thick / 2;
  };
  const top = seg(cx - w / 2, cy - h / 2, cx + w / 2, cy);
  const bottom = seg(cx - w / 2, cy + h / 2, cx + w / 2, cy);
  return (u, v) => Math.min(top(u, v), bottom(u, v));
};

const NAVY = hex('#1b2a4a');
const TEAL = hex('#2bb3a3');
const WHITE = hex('#ffffff');

function appIcon() {
  const gradient = (u, v) => {
    const t = (u + v) / 2;
    const top = hex('#24406e');
    return top.map((c, k) => c * (1 - t) + NAVY[k] * t);
  };
  return render(512, [
    { sdf: roundedSquare(0.04, 0.18), color: gradient },
    { sdf: ring(0.5, 0.5, 0.3, 0.06), color: TEAL },
    { sdf: chevron(0.52, 0.5, 0.16, 0.3, 0.075), color: WHITE },
  ]);
}

const TRAY = {
  idle: { ring: hex('#8a94a6'), dot: null },
  active: { ring: hex('#2bb3a3'), dot: hex('#2bb3a3') },
  attention: { ring: hex('#f0a020'), dot: null, bang: hex('#f0a020') },
};

function trayIcon(state, size) {
  const spec = TRAY[state];
  const layers = [{ sdf: ring(0.5, 0.5, 0.36, 0.14), color: spec.ring }];
  if (spec.dot) layers.push({ sdf: circle(0.5, 0.5, 0.17), color: spec.dot });
  if (spec.bang) {
    layers.push({ sdf: rect(0.43, 0.24, 0.57, 0.58), color: spec.bang });
    layers.push({ sdf: circle(0.5, 0.72, 0.075), color: spec.bang });
  }
  return render(size, layers);
}

const write = (rel, size, pixels) => {
  const file = join(root, rel);
  writeFileSync(file, encodePng(size, pixels));
  console.log(`wrote ${rel} (${size}x${size})`);
};

mkdirSync(join(root, 'resources/tray'), { recursive: true });
write('resources/icon.png', 512, appIcon());
for (const state of Object.keys(TRAY)) {
  // 16 px (macOS menu bar, Windows notification area) and 32 px (Linux panels), each with @2x.
  write(`resources/tray/${state}.png`, 16, trayIcon(state, 16));
  write(`resources/tray/${state}@2x.png`, 32, trayIcon(state, 32));
  write(`resources/tray/${state}-32.png`, 32, trayIcon(state, 32));
  write(`resources/tray/${state}-32@2x.png`, 64, trayIcon(state, 64));
}
