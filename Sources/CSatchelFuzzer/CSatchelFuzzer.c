// The header declares libFuzzer's driver; nothing is defined here.
#include "CSatchelFuzzer.h"
