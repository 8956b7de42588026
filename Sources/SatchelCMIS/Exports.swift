// One import gives an app the whole CMIS client: the model, errors, query statements and Mobile Documents
// conventions (SatchelCMISCore), and the HTTP client, transports and auth providers a session is built on.
@_exported public import SatchelCMISCore
@_exported public import SatchelHTTP
