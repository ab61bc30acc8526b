// Drives filekeeper-mcp with the official TypeScript MCP SDK (@modelcontextprotocol/sdk), the
// client most MCP hosts are built on, over stdio with its StdioClientTransport.
//
// usage:
//   node client.mjs init OUT.json -- SERVER [ARGS...]
//       connect (initialize) and write what the server said about itself:
//       {serverInfo, capabilities, protocolVersion, instructions}.
//   node client.mjs tools OUT.json -- SERVER [ARGS...]
//       list the tools (following nextCursor) and check every input and output schema:
//       {tools: [...], schemas: [{name, input: CHECK, output: CHECK | null}]}, where CHECK is
//       {compiles, compile_error, warnings, meta_valid, meta_errors}: whether the Ajv
//       instance the SDK validates with compiles the schema, and whether the schema is a
//       valid JSON Schema 2020-12 document (the dialect MCP names for tool schemas).
//   node client.mjs session PATH NEW-CONTENT OUTDIR -- SERVER [ARGS...]
//       a read, write, undo round trip on PATH through Client.callTool, after listTools, so
//       that the SDK validates every result's structuredContent against the tool's advertised
//       outputSchema. Every step is written to OUTDIR/NN-name.json as
//       {tool, arguments, validated, tampered_rejected, result} or, when callTool threw,
//       {tool, arguments, validated, thrown: {code, message}}.
//
// Exits non-zero when the session itself could not be carried out (the server did not start,
// a step the scenario builds on failed); a refusal the scenario expects is a normal result.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import Ajv2020 from 'ajv/dist/2020.js';

// No request may take longer than this; a hang is a failure, not a wait.
const REQUEST_TIMEOUT_MS = 30000;

function usage() {
  console.error('usage: client.mjs init|tools OUT.json -- SERVER [ARGS...]');
  console.error('       client.mjs session PATH NEW-CONTENT OUTDIR -- SERVER [ARGS...]');
  process.exit(64);
}

function dump(file, value) {
  writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

// connect(server): an initialised Client talking to a fresh server process, and the protocol
// version the server answered with. The SDK gives a stdio server only a few environment
// variables by default (HOME, PATH, ...); the server needs the caller's FILEKEEPER_HOME, so it
// gets the whole environment, as the t/ scripts set it.
async function connect(server) {
  const [command, ...args] = server;
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env },
    stderr: 'inherit',
  });
  // The SDK hands the negotiated version to transports that have this hook (HTTP ones need
  // it for their headers); on stdio it is how a client learns the version at all.
  let protocolVersion = null;
  transport.setProtocolVersion = (version) => {
    protocolVersion = version;
  };
  const client = new Client({ name: 'filekeeper-t-ts-client', version: '1.0.0' });
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  return { client, protocolVersion };
}

async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: REQUEST_TIMEOUT_MS });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

async function cmdInit(out, server) {
  const { client, protocolVersion } = await connect(server);
  dump(out, {
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    protocolVersion,
    instructions: client.getInstructions() ?? null,
  });
  await client.close();
}

// The SDK's own validator compiles with one Ajv instance per client; a fresh one here so that
// one schema's failure (or $id) cannot affect the next. Ajv warns on the console about what it
// ignores (formats it does not know, such as schemars' uint64); those are kept in `warnings`
// instead. The 2020-12 meta-schema check uses the same Ajv package's 2020 build.
function checkSchema(schema) {
  const check = { compiles: false, compile_error: null, warnings: [], meta_valid: false, meta_errors: null };
  const warn = console.warn;
  console.warn = (...words) => check.warnings.push(words.join(' '));
  try {
    new AjvJsonSchemaValidator().getValidator(schema);
    check.compiles = true;
  } catch (error) {
    check.compile_error = String(error?.message ?? error);
  } finally {
    console.warn = warn;
  }
  check.warnings = [...new Set(check.warnings)];
  const meta = new Ajv2020({ strict: false, validateFormats: false });
  check.meta_valid = meta.validateSchema(schema) === true;
  if (!check.meta_valid) check.meta_errors = meta.errorsText(meta.errors);
  return check;
}

async function cmdTools(out, server) {
  const { client } = await connect(server);
  const tools = await listAllTools(client);
  await client.close();
  const schemas = tools.map((tool) => ({
    name: tool.name,
    input: checkSchema(tool.inputSchema),
    output: tool.outputSchema ? checkSchema(tool.outputSchema) : null,
  }));
  dump(out, { tools, schemas });
  const bad = schemas.filter((s) => !s.input.compiles || (s.output && !s.output.compiles));
  console.log(`${tools.length} tools, ${tools.filter((t) => t.outputSchema).length} with an outputSchema, ${bad.length} schemas that do not compile`);
}

async function cmdSession(path, newContent, outdir, server) {
  mkdirSync(outdir, { recursive: true });
  const { client } = await connect(server);
  // listTools first: Client.callTool validates a result only against the outputSchema of a
  // tool it has seen in a listTools answer (it compiles and caches one validator per tool
  // then). Ajv's console warnings while it compiles are the `tools` command's business.
  const warn = console.warn;
  console.warn = () => {};
  try {
    await listAllTools(client);
  } finally {
    console.warn = warn;
  }
  let steps = 0;

  // step(name, tool, args): one callTool, recorded. `validated` says whether the SDK held an
  // output validator for the tool, so checked the result; `tampered_rejected` says that the
  // same validator refuses an empty object and the result with `ok` of the wrong type, so the
  // check was not vacuous.
  async function step(name, tool, args) {
    steps += 1;
    // The SDK keeps this private in its types; it is the validator callTool itself uses.
    const validator = client.getToolOutputValidator(tool);
    const record = { tool, arguments: args, validated: Boolean(validator) };
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });
      record.result = result;
      if (validator && result.structuredContent) {
        record.tampered_rejected =
          !validator({}).valid && !validator({ ...result.structuredContent, ok: 'yes' }).valid;
      }
    } catch (error) {
      record.thrown = { code: error?.code ?? null, message: String(error?.message ?? error) };
    }
    dump(join(outdir, `${String(steps).padStart(2, '0')}-${name}.json`), record);
    const doc = record.result?.structuredContent;
    console.log(`${String(steps).padStart(2, '0')} ${name}: ${tool} -> ` +
      (record.thrown ? `threw ${record.thrown.code}: ${record.thrown.message}`
        : doc?.ok ? 'ok' : `error ${doc?.error?.code}`));
    return record;
  }

  function need(record, what) {
    const doc = record.result?.structuredContent;
    if (doc?.ok !== true) {
      console.error(`session stopped: ${what} failed: ${JSON.stringify(record)}`);
      process.exit(1);
    }
    return doc;
  }

  const before = need(await step('read-before', 'file_read', { path }), 'the first read');
  const write = need(await step('write', 'file_write', {
    path, content: newContent, expected_hash: before.content_hash,
  }), 'the guarded write');
  need(await step('read-written', 'file_read', { path }), 'the read after the write');
  // The first read's hash is stale now: the same guarded write must be refused.
  await step('stale-write', 'file_write', {
    path, content: 'never written\n', expected_hash: before.content_hash,
  });
  need(await step('undo', 'undo_operation', { operation_id: write.operation_id }), 'the undo');
  need(await step('read-undone', 'file_read', { path }), 'the read after the undo');
  need(await step('history', 'history_list', {}), 'history_list');
  await client.close();
}

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
if (dashes < 0 || dashes === argv.length - 1) usage();
const [command, ...rest] = argv.slice(0, dashes);
const server = argv.slice(dashes + 1);
try {
  if (command === 'init' && rest.length === 1) await cmdInit(rest[0], server);
  else if (command === 'tools' && rest.length === 1) await cmdTools(rest[0], server);
  else if (command === 'session' && rest.length === 3) await cmdSession(rest[0], rest[1], rest[2], server);
  else usage();
} catch (error) {
  console.error(`client.mjs ${command}: ${error?.stack ?? error}`);
  process.exit(1);
}
