/**
 * The order test files start in. vitest's own order (slowest first, from its results cache, else largest file
 * first) is kept, except that the browser tests go first wherever the cache is empty or says otherwise: the web
 * dapp's end-to-end file is the longest by far (a build, then a presentation compiled and proved in the page), so
 * it must start at once beside everything else, not last on a fresh clone.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const isBrowserTest = (spec: TestSpecification) => spec.moduleId.endsWith('.browser.test.ts');

export default class BrowserFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter(isBrowserTest), ...sorted.filter((f) => !isBrowserTest(f))];
  }
}
