// The request and header types are shared with the other HTTP module;
// re-exported so callers need not import a third module.
@_exported import HTTPPrimitives
