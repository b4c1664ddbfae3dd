/**
 * Whether `key` matches `glob`, where `*` matches any run of characters (none included) and every
 * other character is literal: an API key's resource patterns. The literal parts between stars are
 * found in order, each at its leftmost place (always safe when `*` is the only wildcard), so the
 * work is bounded by the lengths of glob and key: no pattern can make it backtrack.
 */
export function globMatches(glob: string, key: string): boolean {
  const parts = glob.split('*');
  if (parts.length === 1) return glob === key;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (key.length < first.length + last.length || !key.startsWith(first) || !key.endsWith(last)) return false;
  const end = key.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (!part) continue;
    const found = key.indexOf(part, at);
    // A later occurrence would end later still: none fits before the last part.
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
