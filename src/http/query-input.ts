/**
 * Turns a query string into input for a zod schema. Query strings carry only
 * text: `numeric` parameters are converted when they look like numbers
 * (anything else stays text and fails validation), an empty value counts as
 * absent, and a repeated parameter stays a list so the schema rejects it.
 */
export function queryInput(query: URLSearchParams, numeric: ReadonlySet<string>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name).filter((value) => value !== '');
    if (values.length === 0) continue;
    const converted = numeric.has(name) ? values.map((value) => (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value)) : values;
    input[name] = converted.length === 1 ? converted[0] : converted;
  }
  return input;
}

interface ZodLike {
  _zod?: { def: { type: string; innerType?: ZodLike; shape?: Record<string, ZodLike> } };
}

export function unwrapOptional(schema: ZodLike | undefined): ZodLike | undefined {
  let current = schema;
  while (current?._zod && ['optional', 'default', 'nullable', 'prefault'].includes(current._zod.def.type)) {
    current = current._zod.def.innerType;
  }
  return current;
}

/** The fields of an object schema that take numbers. */
export function numericFieldsOf(schema: unknown): Set<string> {
  const shape = unwrapOptional(schema as ZodLike)?._zod?.def.shape ?? {};
  return new Set(
    Object.entries(shape)
      .filter(([, field]) => unwrapOptional(field)?._zod?.def.type === 'number')
      .map(([name]) => name),
  );
}
