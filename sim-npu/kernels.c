#include "simnpu-private.h"
typedef int simnpu__kernels_placeholder;
