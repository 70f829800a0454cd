// The introspection thread (see introspection-thread.ts, which also declares
// the messages). Plain JavaScript, so that it runs as it is from src/ (under
// `npm run dev` and the tests) and from dist/, where the build copies it.
import { parentPort, workerData } from 'node:worker_threads';
import { buildClientSchema, execute, parse } from 'graphql';

// The service's schema rebuilt from its own introspection: the same answers,
// order included (a test compares them). graphql-js runs introspection
// synchronously: here it holds this thread, never the one serving requests.
const schema = buildClientSchema(workerData);

parentPort.on('message', (job) => {
  let answer;
  try {
    const result = execute({ schema, document: parse(job.query), variableValues: job.variables, operationName: job.operationName });
    answer = { id: job.id, json: JSON.stringify(result) };
  } catch (error) {
    answer = { id: job.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort.postMessage(answer);
});
