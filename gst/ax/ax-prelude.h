/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_PRELUDE_H__
#define __GST_AX_PRELUDE_H__

#include <gst/gst.h>

#ifndef GST_AX_API
# ifdef BUILDING_GST_AX
#  define GST_AX_API __attribute__ ((visibility ("default"))) extern
# else
#  define GST_AX_API extern
# endif
#endif

#endif /* __GST_AX_PRELUDE_H__ */
