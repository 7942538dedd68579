/* The libFuzzer entry of one target (-DEDDY_FUZZ=ON): EDDY_FUZZ_TARGET names its function (fuzz.h). */
#include "fuzz.h"

#ifndef EDDY_FUZZ_TARGET
#error "EDDY_FUZZ_TARGET must name a target function of fuzz.h"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    eddy_fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return EDDY_FUZZ_TARGET(data, size);
}
