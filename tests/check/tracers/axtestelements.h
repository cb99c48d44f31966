/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __AX_TEST_ELEMENTS_H__
#define __AX_TEST_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* Test-only elements, registered statically in the test binaries:
 *   axtestburn    burns burn-us of thread CPU time per buffer, then
 *                 sleeps sleep-us; `wall-ns`, `cpu-ns` (read as the
 *                 profilers read it) and `calls` are its own measurement
 *   axtesttouch   maps and touches `pages` fresh pages per buffer
 *   axtestdevice  a fake device stage: reports "host copy in", "device
 *                 wait" (DEVICE_WAIT) and "dequant" spans, one device
 *                 event per job and the device state through the probe
 *                 API, with device-ms per job on `cores` cores and
 *                 `in-flight` jobs outstanding; `lag-ms` and `sim-cpu-ms`
 *                 play a simulator that cannot keep pace with its model
 *   axtestdecode  a decoder-like element: new buffers stamped with the
 *                 input's PTS, else its DTS, one frame late; `offset-ms`
 *                 moves them onto another timeline */
void ax_test_elements_register (void);

G_END_DECLS
#endif /* __AX_TEST_ELEMENTS_H__ */
