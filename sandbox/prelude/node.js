// toolfold's JavaScript prelude: run as `node --max-old-space-size=N -e <this file>`
// by the sandbox (see sandbox/javascript.go). It reads the run frame from the
// bridge (fd 4), runs the script as the body of an async function with
// tools/call/searchTools bound, and sends the done frame on fd 3.
'use strict';
const fs = require('fs');
const vm = require('vm');
const EventEmitter = require('events');
const { createRequire } = require('module');

// Only modules loaded at node's start are used here: net and stream
// (sockets, Writable) cost about 10 ms to load.

// Output goes to fds 1 and 2 with blocking writes. Node's own stdout on a
// pipe queues in memory when the pipe is full, and a script printing in a
// loop never yields to drain it: it would run out of memory instead of
// being stopped for its output. The global console writes to whatever
// process.stdout is on its first use.
function syncStream(fd) {
  const s = new EventEmitter();
  s.fd = fd;
  s.isTTY = false;
  s.writable = true;
  s.write = (chunk, enc, cb) => {
    if (typeof enc === 'function') cb = enc;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, typeof enc === 'string' ? enc : 'utf8') : chunk;
    let off = 0;
    while (off < buf.length) {
      try {
        off += fs.writeSync(fd, buf, off);
      } catch (e) {
        if (e.code !== 'EAGAIN') {
          if (cb) cb(e);
          return false;
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
    if (cb) cb();
    return true;
  };
  s.end = (chunk, enc, cb) => { if (chunk) s.write(chunk, enc, cb); };
  return s;
}
const stdout = syncStream(1);
const stderr = syncStream(2);
Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => stdout });
Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, get: () => stderr });

// The script's require resolves built-in modules and absolute paths only:
// nothing in the working directory (the session's workspace, which an
// earlier run may have filled) is found by a bare name.
// A relative path (./servers/memory/index.js, the code API) is resolved
// against the working directory, as a script means it.
const baseRequire = createRequire('/toolfold-script/');
function scriptRequire(id) {
  return baseRequire(relative(id));
}
scriptRequire.resolve = (id, o) => baseRequire.resolve(relative(id), o);
scriptRequire.cache = baseRequire.cache;
function relative(id) {
  return typeof id === 'string' && (id.startsWith('./') || id.startsWith('../'))
    ? require('path').resolve(process.cwd(), id) : id;
}

// What a script that tries the network is told. The sandbox's kernel
// layers (an empty network namespace, seccomp and Landlock) are what keep
// it off the network; this only turns their bare "connect EPERM" or a
// resolver's ENOTFOUND into words that say what to do. net, dns and dgram
// are patched when a script first loads one of them (http, https, tls and
// http2 load net), fetch when it is first called: loading net costs about
// 10 ms, which a script that never touches the network does not pay.
const NO_NETWORK = 'the sandbox has no network: call a tool instead (search_tools finds one)';
const NET_MODULES = new Set(['net', 'tls', 'http', 'https', 'http2', 'dns', 'dns/promises', 'dgram']);

// noNetwork is the error a network attempt gets, made in the script's call
// so that its stack names the script's line through http's layers.
function noNetwork(syscall) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const e = new Error(NO_NETWORK);
  Error.stackTraceLimit = limit;
  e.code = 'EPERM';
  e.syscall = syscall;
  return e;
}

let netPatched = false;

function patchNetwork() {
  if (netPatched) return;
  netPatched = true;
  const net = require('net');
  const connect = net.Socket.prototype.connect;
  // Every TCP connection (net, tls, http, https, http2, fetch) starts here;
  // a Unix socket's path is local and goes through.
  net.Socket.prototype.connect = function (...args) {
    const a = Array.isArray(args[0]) ? args[0][0] : args[0];
    const path = typeof a === 'string' ? Number.isNaN(Number(a)) : a !== null && typeof a === 'object' && a.path != null;
    if (path) return connect.apply(this, args);
    const err = noNetwork('connect');
    this.connecting = true; // writes wait for the connection, as they would for a lookup
    setImmediate(() => this.destroy(err)); // as a failed lookup would: after the caller's listeners
    return this;
  };
  const dns = require('dns');
  patchLookups(dns, false);
  patchLookups(dns.Resolver.prototype, false);
  patchLookups(dns.promises, true);
  patchLookups(dns.promises.Resolver.prototype, true);
  const dgram = require('dgram');
  dgram.createSocket = () => { throw noNetwork('socket'); };
}

// patchLookups makes obj's lookup, resolve* and reverse functions fail
// with noNetwork: rejected promises, or an error to the callback.
function patchLookups(obj, promises) {
  for (const k of Object.getOwnPropertyNames(obj)) {
    if (typeof obj[k] !== 'function' || !/^(lookup|resolve|reverse)/.test(k)) continue;
    obj[k] = promises
      ? () => Promise.reject(noNetwork('getaddrinfo'))
      : (...args) => {
        const err = noNetwork('getaddrinfo');
        const cb = args[args.length - 1];
        if (typeof cb !== 'function') throw err;
        setImmediate(cb, err);
        return {};
      };
  }
}

// Every module load (the script's require, createRequire's, a module's
// own) passes here: the first load of a network module patches them.
const Module = require('module');
const moduleLoad = Module._load;
Module._load = function (request, ...rest) {
  const m = moduleLoad.call(this, request, ...rest);
  if (!netPatched && typeof request === 'string' && NET_MODULES.has(request.replace(/^node:/, ''))) patchNetwork();
  return m;
};

// fetch patches net on its first call and names the cause of its failure:
// undici's own message is only "fetch failed".
const fetchDesc = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
if (fetchDesc) {
  const realFetch = () => (fetchDesc.get ? fetchDesc.get.call(globalThis) : fetchDesc.value);
  Object.defineProperty(globalThis, 'fetch', {
    configurable: true, enumerable: fetchDesc.enumerable, writable: true,
    value: function fetch(...args) {
      patchNetwork();
      const err = new TypeError('fetch failed: ' + NO_NETWORK); // here, for the script's line
      return realFetch().apply(this, args).catch((e) => {
        if (e && e.cause && e.cause.message === NO_NETWORK) {
          err.cause = e.cause;
          throw err;
        }
        throw e;
      });
    },
  });
}

class ToolError extends Error {
  constructor(message, tool) {
    super(message);
    this.name = 'ToolError';
    this.tool = tool || '';
  }
}

// The bridge: fd 3 written and fd 4 read with fs calls on libuv's thread
// pool, so the script's event loop never blocks on them. fd 4 is read only
// while a request awaits its answer (or before the run frame), so a script
// awaiting something that can never settle lets the loop empty
// (beforeExit) instead of waiting for the wall timeout.
const pending = new Map();
let nextId = 0;
let maxFrame = 1 << 30;
let finished = false;
let started = false;
// Once the script's code has returned: its value (JSON, or undefined for
// none), sent when the event loop has drained, as node itself would run
// the pending timers and I/O before it exits.
let mainDone = false;
let mainValue;

function fatal(msg) {
  finished = true;
  try { fs.writeSync(2, `toolfold sandbox: bridge: ${msg}\n`); } finally { process.exit(3); }
}

const writeQueue = [];
let writing = false;

// send writes one frame, whole and in order; cb runs once it is written.
function send(line, cb) {
  writeQueue.push([Buffer.from(line + '\n'), cb]);
  flush();
}

function flush() {
  if (writing || writeQueue.length === 0) return;
  writing = true;
  const [buf, cb] = writeQueue[0];
  fs.write(3, buf, 0, buf.length, null, (err, n) => {
    writing = false;
    if (err && err.code !== 'EAGAIN') fatal(err.message);
    if (err) return setTimeout(flush, 1);
    if (n < buf.length) {
      writeQueue[0][0] = buf.subarray(n);
    } else {
      writeQueue.shift();
      if (cb) cb();
    }
    flush();
  });
}

const readBuf = Buffer.allocUnsafe(1 << 16);
let chunks = [];
let reading = false;

function pump() {
  if (reading || (started && pending.size === 0)) return;
  reading = true;
  fs.read(4, readBuf, 0, readBuf.length, null, (err, n) => {
    reading = false;
    if (err && err.code !== 'EAGAIN') fatal(err.message);
    if (err) return setTimeout(pump, 1);
    if (n === 0) {
      if (!finished) fatal('the parent closed the bridge');
      return;
    }
    received(Buffer.from(readBuf.subarray(0, n)));
    pump();
  });
}

// received splits what was read into frames.
function received(data, onFrame = dispatch) {
  let i;
  while ((i = data.indexOf(10)) >= 0) {
    chunks.push(data.subarray(0, i));
    data = data.subarray(i + 1);
    const line = Buffer.concat(chunks).toString('utf8');
    chunks = [];
    let f;
    try { f = JSON.parse(line); } catch (e) { fatal('malformed frame: ' + e.message); }
    onFrame(f);
  }
  if (data.length > 0) chunks.push(data);
}

function dispatch(f) {
  if (!started) {
    if (f.method !== 'run') fatal('first bridge frame is not a run frame');
    started = true;
    run(f.params);
  } else {
    answer(f);
  }
}

function fmtBytes(n) {
  for (const [shift, unit] of [[30, 'GiB'], [20, 'MiB'], [10, 'KiB']]) {
    const u = 2 ** shift;
    if (n >= u && n % u === 0) return `${n / u} ${unit}`;
  }
  return `${n} bytes`;
}

function request(method, params, what, tool) {
  // Created here, in the script's call, so its stack names the script line.
  const err = new ToolError('', tool);
  const line = JSON.stringify({ id: ++nextId, method, params });
  const size = Buffer.byteLength(line);
  if (size > maxFrame) {
    err.message = `${what} of ${size} bytes exceed the ${fmtBytes(maxFrame)} frame limit; ` +
      'pass less data per call or raise sandbox.max_frame';
    return Promise.reject(err);
  }
  return new Promise((resolve, reject) => {
    pending.set(nextId, { resolve, reject, err });
    send(line);
    pump();
  });
}

function answer(f) {
  const p = pending.get(f.id);
  if (!p) return;
  pending.delete(f.id);
  if (f.output) stdout.write(f.output); // what a skill the call ran printed, ahead of its result
  if (f.error) {
    p.err.message = f.error.message || 'tool call failed';
    p.reject(p.err);
  } else {
    p.resolve(f.result === undefined ? null : f.result);
  }
}

function call(name, args) {
  if (typeof name !== 'string' || name === '') {
    return Promise.reject(new TypeError('call needs a tool name: await call("server.tool", {...})'));
  }
  const params = { name };
  if (args !== undefined) params.args = args;
  return request('call', params, 'the arguments to ' + name, name);
}

function searchTools(query, detail, limit) {
  if (detail && typeof detail === 'object') ({ detail, limit } = detail);
  const params = { query: String(query) };
  if (detail) params.detail = String(detail);
  if (limit) params.limit = Number(limit);
  return request('search', params, 'the search query', 'search_tools');
}

function serverProxy(server) {
  return new Proxy(Object.create(null), {
    get(_, tool) {
      if (typeof tool !== 'string' || tool === 'then') return undefined;
      const name = server + '.' + tool;
      return (args) => call(name, args);
    },
  });
}

// skills.save({name, description, language, code, parameters}): save a skill
// to call later as tools.skills.NAME({...}).
const skills = Object.freeze({
  save(spec) {
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      return Promise.reject(new TypeError('skills.save takes one object: await skills.save({name, description, language, code})'));
    }
    return request('save_skill', spec, 'the skill', 'skills.save');
  },
});

const tools = new Proxy(Object.create(null), {
  get(_, server) {
    if (typeof server !== 'string' || server === 'then') return undefined;
    return serverProxy(server);
  },
});

// doneLine is the done frame, with valueJSON (the return value, encoded)
// or params.error.
function doneLine(params, valueJSON) {
  const line = valueJSON === undefined ? JSON.stringify({ method: 'done', params })
    : '{"method":"done","params":{"value":' + valueJSON + '}}';
  if (Buffer.byteLength(line) <= maxFrame) return line;
  return JSON.stringify({ method: 'done', params: { error: { kind: 'limit', msg:
    `the return value of ${Buffer.byteLength(valueJSON || '')} bytes exceeds the ` +
    `${fmtBytes(maxFrame)} frame limit; return less (print it, or summarize) or raise sandbox.max_frame` } } });
}

// done sends the done frame and exits once it is written.
function done(params, valueJSON) {
  if (finished) return;
  finished = true;
  const line = doneLine(params, valueJSON);
  if (writing || writeQueue.length > 0) return send(line, () => process.exit(0));
  // Nothing is queued: write it here, blocking (the script is over), and
  // exit without a round through libuv's thread pool.
  const buf = Buffer.from(line + '\n');
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(3, buf, off);
    } catch (e) {
      if (e.code !== 'EAGAIN') fatal(e.message);
      writeQueue.push([buf.subarray(off), () => process.exit(0)]);
      return flush();
    }
  }
  process.exit(0);
}

function scriptLine(text) {
  const m = /(?:^|[\s(])script:(\d+)(?::\d+)?/m.exec(text || '');
  return m ? Number(m[1]) : 0;
}

function fail(e, kind) {
  let msg;
  let line = 0;
  if (e instanceof ToolError) {
    msg = e.message;
    line = scriptLine(e.stack);
  } else if (e instanceof Error) {
    msg = `${e.name}: ${e.message}`;
    line = scriptLine(e.stack);
    if (/heap out of memory|Allocation failed/.test(e.message)) kind = 'memory';
  } else {
    let s;
    try { s = JSON.stringify(e); } catch { s = undefined; }
    msg = 'uncaught value: ' + (s === undefined ? String(e) : s);
  }
  if (msg.length > 4096) msg = msg.slice(0, 4096) + '…';
  done({ error: { kind, line, msg } });
}

// finish keeps the script's value, encoded as it was returned, for done,
// which beforeExit sends once nothing is left to run. When timers or I/O
// of the script's are pending, the parent is told: should a limit stop
// them, the answer says so.
function finish(value) {
  if (value !== undefined) {
    try {
      mainValue = JSON.stringify(value);
    } catch (e) {
      return done({ error: { kind: 'runtime', msg: `cannot return this value: ${e.message}` } });
    }
  }
  mainDone = true;
  if (scriptPending()) notifyPending();
}

// notifyPending tells the parent at once, with a blocking write when no
// frame is being written (nothing to keep in order, no thread pool to
// start), so a limit soon after still finds it.
function notifyPending() {
  const buf = Buffer.from('{"method":"pending"}\n');
  let off = 0;
  if (!writing && writeQueue.length === 0) {
    try {
      off = fs.writeSync(3, buf); // under PIPE_BUF: all or EAGAIN
    } catch (e) {
      if (e.code !== 'EAGAIN') fatal(e.message);
    }
  }
  if (off < buf.length) {
    writeQueue.push([buf.subarray(off)]);
    flush();
  }
}

// scriptPending reports whether anything of the script's keeps the event
// loop alive: its timers, immediates, handles or fs requests, not the
// bridge's own reads and writes.
function scriptPending() {
  if (typeof process.getActiveResourcesInfo !== 'function') return true;
  let ours = (reading ? 1 : 0) + (writing ? 1 : 0);
  for (const r of process.getActiveResourcesInfo()) {
    if (r === 'FSReqCallback' && ours > 0) ours--;
    else return true;
  }
  return false;
}

// The code API (servers/ and skills/ in the working directory, read-only:
// CommonJS modules) calls tools through this, the same bridge as tools.
Object.defineProperty(globalThis, '__toolfold', { value: Object.freeze({ call, tools, searchTools, ToolError, skills }) });

// importRE matches a static import statement at the start of a line:
// import x / * as x / { a, b as c } / x, { a } from "spec", or import "spec".
const importRE = /^([ \t]*)import\s+(?:([\w$]+|\*\s*as\s+[\w$]+|\{[^}]*\}|[\w$]+\s*,\s*(?:\{[^}]*\}|\*\s*as\s+[\w$]+))\s*from\s*)?(['"])([^'"\n]+)\3[ \t]*;?/gm;

// rewriteImports turns the script's static imports (a script is a
// function body, where import statements cannot stand) into require calls
// on the same lines, so line numbers stay.
function rewriteImports(code) {
  return code.replace(importRE, (m, indent, clause, q, spec) => {
    const req = 'require(' + JSON.stringify(spec) + ')';
    const out = clause ? importBindings(clause.replace(/\s+/g, ' ').trim(), req) : req + ';';
    return indent + out + '\n'.repeat((m.match(/\n/g) || []).length);
  });
}

// importBindings declares an import clause's names from a module (a
// default import is the whole module, as Node's import of CommonJS has it).
function importBindings(clause, req) {
  const braces = (c) => c.replace(/([\w$]+)\s+as\s+([\w$]+)/g, '$1: $2');
  let m;
  if ((m = /^\*\s*as\s+([\w$]+)$/.exec(clause))) return `const ${m[1]} = ${req};`;
  if (clause.startsWith('{')) return `const ${braces(clause)} = ${req};`;
  if ((m = /^([\w$]+)\s*,\s*(.*)$/.exec(clause))) {
    const rest = m[2].startsWith('{') ? braces(m[2]) : m[2].replace(/^\*\s*as\s+/, '');
    return `const ${m[1]} = ${req}, ${rest} = ${m[1]};`;
  }
  return `const ${clause} = ${req};`;
}

// compile makes the script an async function of the globals it is given.
function compile(code) {
  // The header shares line 1 with the code, so lines need no offset.
  const src = '(async function (tools, call, searchTools, search_tools, ToolError, require, args, skills) {' +
    rewriteImports(code) + '\n})';
  return new vm.Script(src, { filename: 'script', importModuleDynamically: dynamicImport }).runInThisContext();
}

// dynamicImport serves the script's import(spec) (a vm.Script has no
// loader of its own, and the bare error says nothing a model can use):
// spec is resolved as the script's require resolves it (a relative path
// against the working directory, built-in modules, never a bare name from
// the workspace), then imported by Node's own loader, which gives a
// CommonJS module's namespace (default: its exports) as import() does.
function dynamicImport(spec) {
  const id = String(spec);
  const bare = id.replace(/^node:/, '');
  if (!netPatched && NET_MODULES.has(bare)) patchNetwork();
  const builtin = id !== bare || Module.isBuiltin(id);
  return import(builtin ? 'node:' + bare : require('url').pathToFileURL(scriptRequire.resolve(id)).href);
}

function run(params) {
  const lim = params.limits || {};
  if (lim.max_frame_bytes) maxFrame = lim.max_frame_bytes;
  let fn;
  try {
    fn = compile(params.code);
  } catch (e) {
    const line = scriptLine(e.stack);
    return done({ error: { kind: 'syntax', line, msg: `${e.name}: ${e.message}` } });
  }
  if (params.check) return done({});
  fn(tools, call, searchTools, searchTools, ToolError, scriptRequire, params.args, skills).then(finish, (e) => fail(e, 'runtime'));
}

// A script calling process.exit ends the run like Python's sys.exit: code
// 0 without a value, any other code as an error. Only synchronous writes
// work in an exit handler; fd 3 is a blocking pipe.
// Exiting with 0 after the script's code returned keeps its value.
process.on('exit', (code) => {
  if (finished) return;
  finished = true;
  const line = code !== 0 ? doneLine({ error: { kind: 'runtime', msg: `process.exit(${code})` } })
    : doneLine({}, mainDone ? mainValue : undefined);
  try { fs.writeSync(3, line + '\n'); } catch {}
});
process.on('uncaughtException', (e) => fail(e, 'runtime'));
process.on('unhandledRejection', (e) => fail(e, 'runtime'));
// The event loop is empty: the run is over.
process.on('beforeExit', () => {
  if (mainDone) return done({}, mainValue);
  done({ error: { kind: 'runtime', msg:
    'the script awaited something that can never finish (a promise nobody resolves); ' +
    'await only tool calls and promises that settle' } });
});

// The run frame is read with blocking reads: nothing else can happen
// before it, and libuv's thread pool, which fs.read starts (a millisecond
// or more), is then only started by a script that calls a tool.
function readFirst() {
  while (!started) {
    let n;
    try {
      n = fs.readSync(4, readBuf, 0, readBuf.length, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') fatal(e.message);
      return pump();
    }
    if (n === 0) fatal('the parent closed the bridge');
    received(Buffer.from(readBuf.subarray(0, n)));
  }
}

// Once down a run's path before the frame comes, through the same
// functions: a frame read into the buffer, cut and parsed (but not
// dispatched), a script compiled, called and its value encoded, the done
// line made and written to fd 3 with no bytes (which a pipe does not pass
// on). V8 compiles each function on its first call, and the process takes
// page faults on first use; a warm child pays for both while it waits
// (measured on node alone with this prelude, frame written to done read at
// p50: 2.4-2.5 ms with the compile alone warmed, 1.7-1.8 ms with this).
function warmUp() {
  const fn = compile('return {x: [args]};');
  fn(undefined, undefined, undefined, undefined, ToolError, undefined, 1).then(() => {}, () => {});
  const frame = Buffer.from(JSON.stringify({ method: 'run', params: { code: 'return 1', limits: {} } }) + '\n');
  frame.copy(readBuf);
  received(Buffer.from(readBuf.subarray(0, frame.length)), () => {});
  scriptPending();
  fs.writeSync(3, Buffer.from(doneLine({}, JSON.stringify({ x: [1] })) + '\n'), 0, 0);
}

warmUp();
readFirst();
