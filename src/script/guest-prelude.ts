/**
 * JavaScript evaluated inside QuickJS before the script: it turns the one raw
 * host function into the documented global API, captures console output and
 * serialises the script's return value. It runs in the guest realm, so nothing
 * here can reach the host; it only shapes arguments and errors.
 *
 * Every value crossing to the host is a string (paths, JSON text), so no guest
 * object is ever handed to host code, and data crosses as JSON text that the
 * guest's own JSON.parse turns into values.
 */
export const preludeFilename = '<spillway>';

/** The global names the API defines (for error hints and docs). */
export const apiGlobals = ['args', 'readText', 'readJson', 'readRows', 'listFiles', 'writeJson', 'writeText', 'console'] as const;

/** Called as prelude(host, argsJson); returns start(main) → Promise<JSON text of the return value>. */
export const preludeSource = String.raw`(function (host, argsJson) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const defineProperty = Object.defineProperty;
  const isInteger = Number.isInteger;

  class SpillwayError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }
  defineProperty(SpillwayError.prototype, 'name', { value: 'SpillwayError', writable: true, configurable: true });

  function call(name, op, a, b, c) {
    try {
      return host(op, a, b, c);
    } catch (error) {
      if (error !== null && typeof error === 'object' && error.name === 'SpillwayHostError') {
        let info;
        try { info = parse(error.message); } catch (_) { info = { code: 'INTERNAL', message: String(error.message) }; }
        throw new SpillwayError(info.code, name + ': ' + info.message);
      }
      throw error;
    }
  }

  function checkPath(name, path) {
    if (typeof path !== 'string') {
      throw new TypeError(name + '(path): path must be a string relative to the conversation folder, e.g. "results/0001-query_sql.jsonl".');
    }
  }

  // Text that contains a NUL character crosses as JSON text (C strings end at NUL).
  function decodeText(value) {
    return typeof value === 'string' ? value : parse(value.json);
  }

  function readText(path) {
    checkPath('readText', path);
    return decodeText(call('readText', 'read', path));
  }

  function readJson(path) {
    checkPath('readJson', path);
    const text = decodeText(call('readJson', 'read', path));
    try {
      return parse(text);
    } catch (error) {
      throw new SpillwayError('INVALID_JSON', 'readJson: ' + path + ' is not valid JSON (' + error.message + '). For a JSONL table use readRows; for plain text use readText.');
    }
  }

  function readRows(path, options) {
    checkPath('readRows', path);
    let offset = 0;
    let limit = -1;
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') throw new TypeError('readRows(path, options): options must be an object like { offset: 0, limit: 1000 }.');
      if (options.offset !== undefined) {
        if (!isInteger(options.offset) || options.offset < 0) throw new RangeError('readRows: offset must be an integer >= 0 (the first row to return, counting from 0).');
        offset = options.offset;
      }
      if (options.limit !== undefined) {
        if (!isInteger(options.limit) || options.limit < 1) throw new RangeError('readRows: limit must be an integer >= 1 (the number of rows to return at most).');
        limit = options.limit;
      }
    }
    return parse(call('readRows', 'rows', path, offset, limit));
  }

  function listFiles(dir) {
    if (dir !== undefined && dir !== null && typeof dir !== 'string') throw new TypeError('listFiles(dir): dir must be a folder name such as "results", or omitted for all folders.');
    return parse(call('listFiles', 'list', dir === undefined || dir === null ? '' : dir));
  }

  function write(name, path, text) {
    const hasNul = text.indexOf('\u0000') !== -1;
    return call(name, 'write', path, hasNul ? stringify(text) : text, hasNul);
  }

  function writeText(path, text) {
    checkPath('writeText', path);
    if (typeof text !== 'string') throw new TypeError('writeText(path, text): text must be a string; use writeJson(path, value) for other values.');
    return write('writeText', path, text);
  }

  function writeJson(path, value) {
    checkPath('writeJson', path);
    let text;
    try {
      text = stringify(value, null, 2);
    } catch (error) {
      throw new TypeError('writeJson: the value cannot be written as JSON (' + error.message + '). Write plain objects, arrays, strings, numbers, booleans and null, without cycles.');
    }
    if (text === undefined) throw new TypeError('writeJson: the value is ' + typeof value + ', which has no JSON form.');
    return write('writeJson', path, text + '\n');
  }

  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.name + ': ' + value.message;
    if (typeof value === 'function') return '[function ' + (value.name || 'anonymous') + ']';
    if (typeof value === 'bigint') return String(value) + 'n';
    if (typeof value === 'symbol') return String(value);
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch (_) {
      return String(value);
    }
  }

  function log() {
    let line = '';
    for (let index = 0; index < arguments.length; index += 1) line += (index === 0 ? '' : ' ') + show(arguments[index]);
    host('log', line + '\n');
  }

  const api = {
    readText: readText,
    readJson: readJson,
    readRows: readRows,
    listFiles: listFiles,
    writeJson: writeJson,
    writeText: writeText,
    console: { log: log, info: log, warn: log, error: log, debug: log },
    args: parse(argsJson),
  };
  for (const name of Object.keys(api)) {
    defineProperty(globalThis, name, { value: api[name], writable: true, configurable: true, enumerable: false });
  }

  return function start(main) {
    return (async function () {
      const value = await main();
      let json;
      try {
        json = stringify(value === undefined ? null : value);
      } catch (error) {
        throw new SpillwayError('SCRIPT_ERROR', 'The return value cannot be turned into JSON (' + error.message + '). Return plain data (objects, arrays, strings, numbers, booleans, null) without cycles; convert BigInt to strings.');
      }
      return json === undefined ? 'null' : json;
    })();
  };
})`;
