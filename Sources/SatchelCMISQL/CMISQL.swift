/// CMIS Query Language: parsing (``CMISQL/parse(_:)``) and evaluation against rows the caller supplies.
public enum CMISQL {}
