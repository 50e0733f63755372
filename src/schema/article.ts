/**
 * A name with its indefinite article, for the sentences the framework writes around model names
 * and field kinds: "a Todo", "an Order", "a User", "an APIKey". The article goes by sound,
 * approximated from spelling: a leading acronym is read letter by letter (an SMS, a URL), a
 * vowel takes "an" except where it sounds like "you" or "w" (a User, a Unit, a Euro, a One…),
 * and a silent h takes "an" (an Hour).
 */

/** Letters whose name starts with a vowel sound: "an F", "an M", "an X". */
const VOWEL_SOUND_LETTERS = new Set("AEFHILMNORSX");

function articleOf(name: string): "a" | "an" {
  // Two or more capitals before a capitalised word, a non-letter or the end: APIKey, SMS, URL.
  if (/^[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)/.test(name)) {
    return VOWEL_SOUND_LETTERS.has(name.charAt(0)) ? "an" : "a";
  }
  if (/^(eu|uni|us[aeu]|ut[aeiou]|ur[aeiou])/i.test(name)) return "a";
  if (/^[Oo]n(e|ce)(?![a-z])/.test(name)) return "a";
  if (/^(hour|honest|honou?r|heir)/i.test(name)) return "an";
  return /^[aeiou]/i.test(name) ? "an" : "a";
}

/** `name` after its indefinite article: "a Todo", "an Order". */
export function withArticle(name: string): string {
  return `${articleOf(name)} ${name}`;
}
