/* A stand-in for Windows's bcryptprimitives.dll, for running the Windows test executables under Wine 8, which lacks
 * it: Rust's standard library imports `ProcessPrng` from it (its source of random bytes, for HashMap keys among
 * others). This one fills the buffer with RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * Built by .ci/run with mingw-w64 and placed beside the test executables; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
