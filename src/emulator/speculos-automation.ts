/**
 * Speculos's automation rules (`POST /automation`, `--automation`; speculos/mcu/automation.py and
 * resources/automation.schema, docs/user/automation.md): a document `{"version": 1, "rules": [...]}`. For every text
 * event drawn, the first rule whose `text` equals it, whose `regexp` matches it from its start (Python `re.match`),
 * whose `x`/`y` equal its position and whose `conditions` (`[name, bool]` pairs; an unset name is false) all hold,
 * has its `actions` applied in order: `["button", 1|2, pressed]` (1 left, 2 right), `["finger", x, y, touched]`
 * (no touch screen on a Nano: ignored), `["setbool", name, value]`, `["exit"]`.
 */
import { z } from 'zod';

const action = z.union([
  z.tuple([z.literal('button'), z.number().int(), z.boolean()]),
  z.tuple([z.literal('finger'), z.number().int(), z.number().int(), z.boolean()]),
  z.tuple([z.literal('setbool'), z.string(), z.boolean()]),
  z.tuple([z.literal('exit')]),
]);
const rule = z
  .object({
    text: z.string().optional(),
    regexp: z.string().optional(),
    x: z.number().int().optional(),
    y: z.number().int().optional(),
    conditions: z.array(z.tuple([z.string(), z.boolean()])).optional(),
    actions: z.array(action).optional(),
  })
  .strict();
const document = z.object({ version: z.literal(1), rules: z.array(rule) }).strict();

export type AutomationAction = z.infer<typeof action>;
type Rule = z.infer<typeof rule> & { pattern?: RegExp };

/** The rules set by `POST /automation`, and the variables their `setbool` actions set. */
export class Automation {
  readonly #rules: Rule[];
  readonly #variables = new Map<string, boolean>();

  private constructor(rules: Rule[]) {
    this.#rules = rules;
  }

  /** The rules of a document, or undefined when it is not JSON, not of the schema, or a regexp does not compile. */
  static parse(text: string): Automation | undefined {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = document.safeParse(json);
    if (!parsed.success) return undefined;
    try {
      // Sticky: the match must start at the text's first character, as Python's re.match.
      return new Automation(
        parsed.data.rules.map((r) => ({ ...r, ...(r.regexp !== undefined ? { pattern: new RegExp(r.regexp, 'y') } : {}) })),
      );
    } catch {
      return undefined;
    }
  }

  /** The actions of the first rule matching a drawn text event (none when no rule matches). */
  actionsFor(event: { text: string; x: number; y: number }): AutomationAction[] {
    for (const r of this.#rules) {
      if (r.text !== undefined && r.text !== event.text) continue;
      if (r.pattern) {
        r.pattern.lastIndex = 0;
        if (!r.pattern.test(event.text)) continue;
      }
      if (r.x !== undefined && r.x !== event.x) continue;
      if (r.y !== undefined && r.y !== event.y) continue;
      if (r.conditions?.some(([name, value]) => (this.#variables.get(name) ?? false) !== value)) continue;
      if (!r.actions) continue; // Speculos warns and tries the next rule
      return r.actions;
    }
    return [];
  }

  setVariable(name: string, value: boolean): void {
    this.#variables.set(name, value);
  }
}
