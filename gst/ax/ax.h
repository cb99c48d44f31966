/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_H__
#define __GST_AX_H__

#include <gst/ax/ax-prelude.h>
#include <gst/ax/gstaxtensormeta.h>
#include <gst/ax/gstaxletterboxgeometry.h>
#include <gst/ax/gstaxdetection.h>
#include <gst/ax/gstaxprobe.h>
#include <gst/ax/gstaxreport.h>
#include <gst/ax/gstaxprofiler.h>
#include <gst/ax/gstaxmodelquery.h>

#endif /* __GST_AX_H__ */
