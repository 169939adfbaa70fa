// MatsiteSupport (files, hashing, locks, subprocesses, the config error and exit classes)
// is the vocabulary below every target: MatsiteKit's files and its clients use it as theirs.
@_exported import MatsiteSupport
