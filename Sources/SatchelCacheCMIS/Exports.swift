// One import gives an app what caching a CMIS folder tree takes: the content cache and the CMIS client.
@_exported public import SatchelCache
@_exported public import SatchelCMIS
