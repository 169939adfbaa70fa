// The test servers, sites and tiles of MatsiteTestSupport, in every file of this target.
@_exported import MatsiteTestSupport
