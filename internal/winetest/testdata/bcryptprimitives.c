/*
 * bcryptprimitives.dll with the one function Go's Windows runtime needs
 * from it, ProcessPrng, for Wine releases that lack the DLL (Debian 12's
 * Wine 8.0). It fills the buffer from RtlGenRandom (advapi32's
 * SystemFunction036), as Windows' own ProcessPrng fills it from the
 * system's generator. Built and installed into a test's Wine prefix by
 * winetest.Prefix; never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
