// The three tools every bench peer serves, as plain data, so the v1 and v2 servers
// register the same thing: name, description, JSON Schema of the arguments, and a
// function from arguments to the text of the result.
export const TOOLS = [
  {
    name: 'get_current_time',
    description: 'Returns the current UTC time as an RFC 3339 timestamp.',
    schema: { type: 'object', properties: {} },
    run: () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  },
  {
    name: 'echo',
    description: 'Echoes back the message it is given.',
    schema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'Text to echo back' } },
      required: ['message'],
    },
    run: ({ message }) => message,
  },
  {
    name: 'add',
    description: 'Adds two numbers and returns the sum.',
    schema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    run: ({ a, b }) => String(a + b),
  },
];
