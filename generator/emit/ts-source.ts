// Builds the TypeScript modules of generated/ through ts-morph instead of string templates, so
// every emitted module is parsed by the compiler while it is built, then printed by the
// TypeScript formatter (one indentation and spacing style for all emitters).

import {
  IndentationText,
  NewLineKind,
  Project,
  QuoteKind,
  type CodeBlockWriter,
  type SourceFile,
  type WriterFunction,
} from 'ts-morph';
import { headerComment, type OutputFile } from '../output.js';

const FORMAT = { indentSize: 2, tabSize: 2, convertTabsToSpaces: true, newLineCharacter: '\n' } as const;

/**
 * One module: `build` adds its statements to an empty in-memory source file; the shared header
 * line goes first. Each call gets its own Project, so no state leaks between emitter runs.
 */
export function tsModule(path: string, sources: string[], build: (file: SourceFile) => void): OutputFile {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Single,
    },
  });
  const file = project.createSourceFile(path, '');
  build(file);
  file.insertStatements(0, headerComment(sources).trimEnd());
  // Writer functions inside initializers inherit ts-morph's hanging indent; the formatter
  // re-indents the whole file from its syntax, which also makes the output independent of it.
  file.formatText(FORMAT);
  return { path, content: file.getFullText() };
}

/** A JSON value as a TypeScript expression (JSON text is valid TypeScript). */
export const literal = (value: unknown): string => JSON.stringify(value);

/** Writes one expression: text as it is, or through its writer function. */
function writeValue(writer: CodeBlockWriter, value: string | WriterFunction): void {
  if (typeof value === 'string') writer.write(value);
  else value(writer);
}

/** An array literal with one element per line and a trailing comma, each written by `item`. */
export function arrayOf<T>(items: readonly T[], item: (value: T) => string | WriterFunction): WriterFunction {
  return (writer) => {
    writer.write('[');
    if (items.length === 0) {
      writer.write(']');
      return;
    }
    writer.newLine();
    writer.indent(() => {
      for (const value of items) {
        writeValue(writer, item(value));
        writer.write(',').newLine();
      }
    });
    writer.write(']');
  };
}

/**
 * An object literal with one property per line, in insertion order, with a trailing comma (as
 * hand-written code in this repo has; ts-morph's Writers.object omits it). A value of `null`
 * writes the shorthand property `key`. Keys are written as given, so quote those that need it.
 */
export function objectOf(entries: Record<string, string | WriterFunction | null>): WriterFunction {
  return (writer) => {
    const keys = Object.keys(entries);
    writer.write('{');
    if (keys.length === 0) {
      writer.write('}');
      return;
    }
    writer.newLine();
    writer.indent(() => {
      for (const key of keys) {
        const value = entries[key] as string | WriterFunction | null;
        writer.write(key);
        if (value !== null) {
          writer.write(': ');
          writeValue(writer, value);
        }
        writer.write(',').newLine();
      }
    });
    writer.write('}');
  };
}

/** An object literal on one line, `{ key: value, ... }`, for short records such as field entries. */
export function inlineObject(entries: [key: string, value: string][]): string {
  return `{ ${entries.map(([key, value]) => `${key}: ${value}`).join(', ')} }`;
}
