/**
 * Fuzzy matching of a `describe_models` query against model and field names.
 *
 * Hand-written rather than a library (fuse.js was the candidate): the haystack is a few
 * dozen short identifiers per app, and what matters is a predictable order (exact > prefix >
 * substring > in-order letters > one or two typos), which five rules give in ~40 lines with
 * no dependency and no tuning of a generic scorer's thresholds.
 */

/** Edit distance, stopping early once it exceeds `max`. */
function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length];
}

function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of haystack) if (char === needle[at]) at += 1;
  return at === needle.length;
}

/** 0 (no match) to 100 (same name, case aside). `term` must already be lower-cased. */
export function matchScore(term: string, candidate: string): number {
  const name = candidate.toLowerCase();
  if (term.length === 0) return 0;
  if (name === term) return 100;
  if (name.startsWith(term)) return 90;
  // "todos" finds "Todo": the query is the name plus a plural or suffix.
  if (name.length >= 3 && term.startsWith(name)) return 75;
  if (name.includes(term)) return 70;
  if (term.length >= 2 && isSubsequence(term, name)) return 50;
  const allowed = term.length >= 8 ? 2 : term.length >= 4 ? 1 : 0;
  if (allowed > 0 && levenshtein(term, name, allowed) <= allowed) return 40;
  return 0;
}

/** The query's terms: lower-cased words (split on spaces, commas, dots, slashes). */
export function queryTerms(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[\s,./]+/)
    .filter((term) => term.length > 0);
}
