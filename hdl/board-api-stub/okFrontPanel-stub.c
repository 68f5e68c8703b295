/* Empty bodies for the declarations in okFrontPanel.h: links the board tests without the SDK.
   Every call returns 0 (ok_NoError); nothing here talks to a device. */
#include "okFrontPanel.h"
okFrontPanel_HANDLE okFrontPanel_Construct(void) { return 0; }
void okFrontPanel_Destruct(okFrontPanel_HANDLE hnd) { }
ok_ErrorCode okFrontPanel_OpenBySerial(okFrontPanel_HANDLE hnd, const char *serial) { return 0; }
void okFrontPanel_Close(okFrontPanel_HANDLE hnd) { }
ok_BoardModel okFrontPanel_GetBoardModel(okFrontPanel_HANDLE hnd) { return 0; }
void okFrontPanel_GetBoardModelString(okFrontPanel_HANDLE hnd, ok_BoardModel m, char *buf) { }
ok_ErrorCode okFrontPanel_LoadDefaultPLLConfiguration(okFrontPanel_HANDLE hnd) { return 0; }
void okFrontPanel_GetSerialNumber(okFrontPanel_HANDLE hnd, char *buf) { }
void okFrontPanel_GetDeviceID(okFrontPanel_HANDLE hnd, char *buf) { }
int okFrontPanel_GetDeviceMajorVersion(okFrontPanel_HANDLE hnd) { return 0; }
int okFrontPanel_GetDeviceMinorVersion(okFrontPanel_HANDLE hnd) { return 0; }
int okFrontPanel_GetAPIVersionMajor(void) { return 0; }
int okFrontPanel_GetAPIVersionMinor(void) { return 0; }
int okFrontPanel_GetAPIVersionMicro(void) { return 0; }
ok_ErrorCode okFrontPanel_SetWireInValue(okFrontPanel_HANDLE hnd, int ep, unsigned long val, unsigned long mask) { return 0; }
ok_ErrorCode okFrontPanel_UpdateWireIns(okFrontPanel_HANDLE hnd) { return 0; }
ok_ErrorCode okFrontPanel_GetWireInValue(okFrontPanel_HANDLE hnd, int epAddr, unsigned int *val) { return 0; }
ok_ErrorCode okFrontPanel_UpdateWireOuts(okFrontPanel_HANDLE hnd) { return 0; }
unsigned long okFrontPanel_GetWireOutValue(okFrontPanel_HANDLE hnd, int epAddr) { return 0; }
ok_ErrorCode okFrontPanel_ConfigureFPGA(okFrontPanel_HANDLE hnd, const char *strFilename) { return 0; }
ok_ErrorCode okFrontPanel_ActivateTriggerIn(okFrontPanel_HANDLE hnd, int epAddr, int bit) { return 0; }
ok_ErrorCode okFrontPanel_UpdateTriggerOuts(okFrontPanel_HANDLE hnd) { return 0; }
Bool okFrontPanel_IsTriggered(okFrontPanel_HANDLE hnd, int epAddr, unsigned long mask) { return 0; }
long okFrontPanel_WriteToPipeIn(okFrontPanel_HANDLE hnd, int epAddr, long length, unsigned char *data) { return 0; }
long okFrontPanel_WriteToBlockPipeIn(okFrontPanel_HANDLE hnd, int epAddr, int blockSize, long length, unsigned char *data) { return 0; }
long okFrontPanel_ReadFromPipeOut(okFrontPanel_HANDLE hnd, int epAddr, long length, unsigned char *data) { return 0; }
long okFrontPanel_ReadFromBlockPipeOut(okFrontPanel_HANDLE hnd, int epAddr, int blockSize, long length, unsigned char *data) { return 0; }
ok_ErrorCode okFrontPanel_ResetFPGA(okFrontPanel_HANDLE hnd) { return 0; }
