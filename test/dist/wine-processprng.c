/*
 * ProcessPrng for a Wine older than 8.13 (Debian 12's wine 8.0), which has
 * no bcryptprimitives.dll: Go's Windows runtime (1.22 on) loads it from
 * system32 at start and stops without it. test/dist/cross.sh builds this
 * with mingw-w64 into its own throwaway Wine prefix only, never into a
 * release; Windows 10 and later, and Wine 8.13 on, have the real one.
 * It fills the buffer from RtlGenRandom (advapi32's SystemFunction036).
 */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n)) return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
