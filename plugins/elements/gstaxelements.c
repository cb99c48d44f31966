/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstaxletterbox.h"
#include "gstaxinference.h"
#include "gstaxnms.h"
#include "gstaxoverlay.h"
#include "gstaxclassify.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (axletterbox, plugin);
  ret |= GST_ELEMENT_REGISTER (axinference, plugin);
  ret |= GST_ELEMENT_REGISTER (axnms, plugin);
  ret |= GST_ELEMENT_REGISTER (axoverlay, plugin);
  ret |= GST_ELEMENT_REGISTER (axclassify, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, axelements,
    "Object-detection elements for the simulated NPU: letterbox, "
    "inference, NMS, classification, overlay", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
