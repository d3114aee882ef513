import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldReader, parseCsv, requireColumns } from './csv.js';
import { ResultsError } from './errors.js';

const error = (fn: () => unknown): ResultsError => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ResultsError, String(err));
    return err;
  }
  assert.fail('expected a ResultsError');
};

test('a header and rows; blank lines and CRLF are accepted, lines keep their numbers', () => {
  const t = parseCsv('d/x.csv', 'a,b\r\n1,2\r\n\r\n3,\n');
  assert.deepEqual(t.header, ['a', 'b']);
  assert.deepEqual(t.rows, [{ line: 2, fields: ['1', '2'] }, { line: 4, fields: ['3', ''] }]);
});

test('an empty file, a duplicate column and a short row name file, line and what was expected', () => {
  assert.equal(error(() => parseCsv('d/x.csv', '\n')).message, 'd/x.csv: expected a header line of column names, got an empty file');
  assert.equal(error(() => parseCsv('d/x.csv', 'a,b,a\n')).message, 'd/x.csv:1: column 1: expected unique column names, got "a" again in column 3');
  assert.equal(error(() => parseCsv('d/x.csv', 'a,b\n1,2\n1\n')).message, 'd/x.csv:3: expected 2 fields as in the header, got 1');
  assert.equal(error(() => requireColumns(parseCsv('d/x.csv', 'a,b\n'), ['a', 'c', 'd'])).message, 'd/x.csv:1: expected the columns a,c,d, got no c, d');
});

test('typed fields: numbers, integers in range, flags, choices and empty fields, each error naming line and column', () => {
  const t = parseCsv('x.csv', 'n,i,f,e,o\n1.500000,7,1,pause,\n-1,8,2,stop,x\n');
  const r = new FieldReader(t).at(t.rows[0]!);
  assert.deepEqual([r.number('n'), r.integer('i', 0, 7), r.flag('f'), r.oneOf('e', ['pause', 'resume']), r.optionalNumber('o')], [1.5, 7, true, 'pause', null]);
  r.at(t.rows[1]!);
  assert.equal(error(() => r.number('n')).message, 'x.csv:3: n (column 1): expected a number ≥ 0, got "-1"');
  assert.equal(error(() => r.integer('i', 0, 7)).message, 'x.csv:3: i (column 2): expected an integer in 0..7, got "8"');
  assert.equal(error(() => r.flag('f')).message, 'x.csv:3: f (column 3): expected one of 0, 1, got "2"');
  assert.equal(error(() => r.oneOf('e', ['pause', 'resume'])).message, 'x.csv:3: e (column 4): expected one of pause, resume, got "stop"');
  assert.equal(error(() => r.optionalNumber('o')).message, 'x.csv:3: o (column 5): expected a number ≥ 0, got "x"');
  assert.equal(error(() => r.at(t.rows[0]!).text('o')).message, 'x.csv:2: o (column 5): expected a value, got an empty field');
});

test('number syntax is strict: no spaces, hex or words (Number() would take them)', () => {
  const t = parseCsv('x.csv', 'n\n 1\n0x10\nInfinity\n1e3\n');
  const r = new FieldReader(t);
  for (const row of t.rows.slice(0, 3)) assert.throws(() => r.at(row).number('n'), ResultsError);
  assert.equal(r.at(t.rows[3]!).number('n'), 1000);
});
