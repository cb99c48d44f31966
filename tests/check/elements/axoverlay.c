#include <gst/check/gstcheck.h>
static Suite *
axoverlay_suite (void)
{
  return suite_create ("axoverlay");
}
GST_CHECK_MAIN (axoverlay);
