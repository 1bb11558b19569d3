// A CSV reader with the rules of Go's encoding/csv (RFC 4180): quoted fields may hold commas,
// newlines and doubled quotes; a quote inside an unquoted field is an error; blank lines are
// skipped. The token file is read with it, so quoting behaves as kube-apiserver's does.

export class CsvParseError extends Error {
  constructor(line: number, column: number, what: string) {
    super(`parse error on line ${line}, column ${column}: ${what}`);
    this.name = 'CsvParseError';
  }
}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const s = text.replace(/\r\n/g, '\n');
  let i = 0;
  let line = 1;
  while (i < s.length) {
    if (s[i] === '\n') {
      i++;
      line++;
      continue;
    }
    const record: string[] = [];
    const recordLine = line;
    for (;;) {
      let field = '';
      const fieldStart = i;
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length) throw new CsvParseError(recordLine, i - fieldStart + 1, 'extraneous or missing " in quoted-field');
          const c = s[i];
          if (c === '"') {
            if (s[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < s.length && s[i] !== ',' && s[i] !== '\n') {
          throw new CsvParseError(line, i - fieldStart + 1, 'extraneous or missing " in quoted-field');
        }
      } else {
        while (i < s.length && s[i] !== ',' && s[i] !== '\n') {
          if (s[i] === '"') throw new CsvParseError(line, i - fieldStart + 1, 'bare " in non-quoted-field');
          field += s[i];
          i++;
        }
      }
      record.push(field);
      if (i < s.length && s[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push(record);
    if (i < s.length && s[i] === '\n') {
      i++;
      line++;
    }
  }
  return records;
}
