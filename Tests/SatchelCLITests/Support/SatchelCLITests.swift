import Testing

/// The suites that run the `satchel` binary, one test at a time: each starts a loopback server and a child
/// process, and on two cores running them all at once starves the servers until requests time out.
@Suite(.serialized) enum SatchelCLITests {}
