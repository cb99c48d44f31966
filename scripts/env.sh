# Source this to use an uninstalled build of gst-ax from a shell:
#   . scripts/env.sh
_gst_ax_top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_gst_ax_build="${GST_AX_BUILD_DIR:-$_gst_ax_top/build}"
export GST_PLUGIN_PATH="$_gst_ax_build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_AX_MODEL_PATH="$_gst_ax_build/models${GST_AX_MODEL_PATH:+:$GST_AX_MODEL_PATH}"
export PATH="$_gst_ax_build/tools:$_gst_ax_build/sim-npu/tools${PATH:+:$PATH}"
# libgstax and its GObject introspection data (GstAx-1.0.typelib), for
# Python: gi.require_version ('GstAx', '1.0')
export LD_LIBRARY_PATH="$_gst_ax_build/gst/ax${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GI_TYPELIB_PATH="$_gst_ax_build/gst/ax${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
unset _gst_ax_top _gst_ax_build
