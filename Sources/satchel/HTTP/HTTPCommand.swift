import ArgumentParser

/// `satchel http`: plain HTTP requests through SatchelHTTP, with its auth, cookies, retries and errors.
struct HTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "Send HTTP requests with Satchel's authentication, retries, progress and errors.",
        discussion: """
            The response body goes to standard output, or to a file with -o (replaced only when the download \
            succeeds; Ctrl-C leaves no partial file). A status outside 2xx is an error: one line on standard \
            error and exit code 4 (401, 403), 5 (404, 410) or 6 (other statuses); with --no-fail the error body \
            is printed first. --include prints the status line and headers (secrets redacted) to standard output \
            before the body, like curl -i.

            Examples:
              satchel http get https://example.com/big.iso -o big.iso
              satchel http get -i --user alice https://gw.example.com/sap/ZSRV/
              satchel http put --data-file r.pdf https://example.com/r.pdf
              satchel http post --json '{"a":1}' --csrf --user alice URL
            """,
        subcommands: [HTTPGet.self, HTTPHead.self, HTTPDelete.self, HTTPPut.self, HTTPPost.self, HTTPPatch.self]
    )
}
