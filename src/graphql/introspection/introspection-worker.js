// The introspection thread (see introspection-thread.ts, which also declares
// the messages). Plain JavaScript, so that it runs as it is from src/ (under
// `npm run dev` and the tests) and from dist/, where the build copies it.
import { parentPort, workerData } from 'node:worker_threads';
import { buildClientSchema, execute, parse } from 'graphql';

// The service's schema rebuilt from its own introspection: the same answers,
// order included (a test compares them). graphql-js runs introspection
// synchronously: here it holds this thread, never the one serving requests.
const schema = buildClientSchema(workerData);

// Each top-level field's answer as JSON text of its own, so the event loop's
// side can put them into the response as they are, without parsing them.
parentPort.on('message', (job) => {
  let answer;
  try {
    const result = execute({ schema, document: parse(job.query), variableValues: job.variables, operationName: job.operationName });
    if (result.errors?.length) throw new Error(result.errors[0].message);
    answer = { id: job.id, fields: Object.fromEntries(Object.entries(result.data).map(([key, value]) => [key, JSON.stringify(value)])) };
  } catch (error) {
    answer = { id: job.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort.postMessage(answer);
});
