// Emits generated/lifecycle.ts: the lifecycle table of every group version and kind the specs
// know, served or removed. The runtime decides enablement, removal and deprecation from it alone.

import { VariableDeclarationKind } from 'ts-morph';
import type { Model } from '../model.js';
import type { OutputFile } from '../output.js';
import { arrayOf, literal, tsModule } from './ts-source.js';

export function emitLifecycle(model: Model): OutputFile[] {
  const file = tsModule('lifecycle.ts', model.files, (sf) => {
    sf.addImportDeclaration({ isTypeOnly: true, namedImports: ['GroupVersionLifecycle', 'KindLifecycle'], moduleSpecifier: '../runtime/machinery/lifecycle.js' });
    sf.addVariableStatement({
      docs: ['Each group version the specs state a lifecycle for, served or removed.'],
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: 'groupVersionLifecycles', type: 'GroupVersionLifecycle[]', initializer: arrayOf(model.groupVersionLifecycles, literal) }],
    });
    sf.addVariableStatement({
      docs: ['Each kind, served or removed, with its group version\'s releases and its own overrides applied.'],
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: 'kindLifecycles', type: 'KindLifecycle[]', initializer: arrayOf(model.kindLifecycles, literal) }],
    });
  });
  return [file];
}
