/* placeholder: the frame receiver lands with libipc */
#include "config.h"
