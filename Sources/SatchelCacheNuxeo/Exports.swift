// One import gives an app what caching a Nuxeo tree takes: the content cache and the Nuxeo client.
@_exported public import SatchelCache
@_exported public import SatchelNuxeo
