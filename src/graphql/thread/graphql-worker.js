// The GraphQL thread (see graphql-thread.ts, which also declares the
// messages). Plain JavaScript, so that it runs as it is from src/ (under
// `npm run dev` and the tests) and from dist/, where the build copies it.
import { parentPort, workerData } from 'node:worker_threads';
import { buildClientSchema, execute, parse, validate } from 'graphql';

// The service's schema rebuilt from its own introspection: the same answers,
// order included, and the same validation (tests compare both). graphql-js
// runs both synchronously: here they hold this thread, never the one serving
// requests.
const schema = buildClientSchema(workerData);

/** Each top-level field's answer as JSON text of its own, for the other side to put in as it is. */
function introspect(job) {
  const result = execute({ schema, document: parse(job.query), variableValues: job.variables, operationName: job.operationName });
  if (result.errors?.length) throw new Error(result.errors[0].message);
  return { fields: Object.fromEntries(Object.entries(result.data).map(([key, value]) => [key, JSON.stringify(value)])) };
}

/** GraphQL's own rules; a document that does not parse is left for the other side to report. */
function check(job) {
  let document;
  try {
    document = parse(job.query);
  } catch {
    return { verdict: { parsed: false } };
  }
  let errors;
  try {
    errors = validate(schema, document);
  } catch (error) {
    // graphql-js 16 throws from a rule on some invalid documents (a subscription whose root field is
    // conditional on a variable): such a document is invalid, not a failure of the thread.
    errors = [error];
  }
  return { verdict: { parsed: true, errors: errors.map((error) => ({ message: error.message, positions: error.positions ?? [] })) } };
}

parentPort.on('message', (job) => {
  let answer;
  try {
    answer = { id: job.id, ...(job.kind === 'validate' ? check(job) : introspect(job)) };
  } catch (error) {
    answer = { id: job.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort.postMessage(answer);
});
