// What the chart script's modules touch of a browser's window when Node loads them: the tab's
// registries live on `window`. Imported first by every test file (before the modules it tests).
globalThis.window = globalThis;
// a window's listeners: taken and never called (no event comes in Node)
if (typeof globalThis.addEventListener !== "function") globalThis.addEventListener = () => {};
