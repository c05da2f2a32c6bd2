// Text for CSV and JSON downloads: pure, shared by the lab (compare.js) and the pages and figures of web/,
// which import it here: web/ may import lab/, lab/ imports nothing of web/.

/** A CSV cell: quoted (RFC 4180) when it holds a comma, a quote or a line break. */
export function csvCell(v) {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A number for CSV/JSON text: 9 significant digits, enough to read back the exact float32. */
export function csvNumber(x) {
  if (Number.isFinite(x)) return Number(x.toPrecision(9)).toString();
  return x > 0 ? 'Infinity' : x < 0 ? '-Infinity' : 'NaN';
}
