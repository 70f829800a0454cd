import { exercise } from './calls.js';

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error('usage: node dist/main.js <base URL of a running lab-api>');
console.log(JSON.stringify(await exercise(baseUrl)));
