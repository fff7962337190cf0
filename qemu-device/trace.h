#include "trace/trace-hw_emgpu.h"
