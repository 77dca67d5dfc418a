// LiveStack, the live-stack suite trait and their helpers moved to
// TestSupport (Tests/TestSupport/LiveStack.swift), where StorefrontKit's live
// tests use them too. Re-exported here so every file of this target sees them.
@_exported import TestSupport
