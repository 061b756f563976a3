/** JSON Schema building blocks shared by the Event, the REST answers and the MCP tools. */

/** An object schema that admits exactly the properties given: the contract's closed objects. */
export const closedObject = <P extends Record<string, unknown>>(
  properties: P,
  required: (keyof P & string)[] = [],
) => ({
  type: 'object' as const,
  properties,
  required,
  additionalProperties: false as const,
});
