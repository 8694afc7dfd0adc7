// Every test file with a DOM (happy-dom, jsdom) waits up to 5 s in findBy… and waitFor, not
// testing-library's default one second: CI runs Chromium and other test files beside these on two
// cores, and a re-render there took just over a second. What is awaited is unchanged.
if (typeof document !== 'undefined') {
  const { configure } = await import('@testing-library/react');
  configure({ asyncUtilTimeout: 5000 });
}

export {};
