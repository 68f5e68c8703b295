/* A stub of Opal Kelly's FrontPanel C API, declarations only, written from the calls
   rust-hdl-ok-frontpanel-sys makes: enough for bindgen, so `cargo check --features board`
   type-checks without the vendor SDK. Nothing links against it. */
typedef void *okFrontPanel_HANDLE;
typedef int Bool;
typedef enum { ok_NoError = 0, ok_Failed = -1, ok_Timeout = -2, ok_DataAlignmentError = -18, ok_InvalidParameter = -20 } ok_ErrorCode;
typedef enum { ok_brdUnknown = 0 } ok_BoardModel;
okFrontPanel_HANDLE okFrontPanel_Construct(void);
void okFrontPanel_Destruct(okFrontPanel_HANDLE hnd);
ok_ErrorCode okFrontPanel_OpenBySerial(okFrontPanel_HANDLE hnd, const char *serial);
void okFrontPanel_Close(okFrontPanel_HANDLE hnd);
ok_BoardModel okFrontPanel_GetBoardModel(okFrontPanel_HANDLE hnd);
void okFrontPanel_GetBoardModelString(okFrontPanel_HANDLE hnd, ok_BoardModel m, char *buf);
ok_ErrorCode okFrontPanel_LoadDefaultPLLConfiguration(okFrontPanel_HANDLE hnd);
void okFrontPanel_GetSerialNumber(okFrontPanel_HANDLE hnd, char *buf);
void okFrontPanel_GetDeviceID(okFrontPanel_HANDLE hnd, char *buf);
int okFrontPanel_GetDeviceMajorVersion(okFrontPanel_HANDLE hnd);
int okFrontPanel_GetDeviceMinorVersion(okFrontPanel_HANDLE hnd);
int okFrontPanel_GetAPIVersionMajor(void);
int okFrontPanel_GetAPIVersionMinor(void);
int okFrontPanel_GetAPIVersionMicro(void);
ok_ErrorCode okFrontPanel_SetWireInValue(okFrontPanel_HANDLE hnd, int ep, unsigned long val, unsigned long mask);
ok_ErrorCode okFrontPanel_UpdateWireIns(okFrontPanel_HANDLE hnd);
ok_ErrorCode okFrontPanel_GetWireInValue(okFrontPanel_HANDLE hnd, int epAddr, unsigned int *val);
ok_ErrorCode okFrontPanel_UpdateWireOuts(okFrontPanel_HANDLE hnd);
unsigned long okFrontPanel_GetWireOutValue(okFrontPanel_HANDLE hnd, int epAddr);
ok_ErrorCode okFrontPanel_ConfigureFPGA(okFrontPanel_HANDLE hnd, const char *strFilename);
ok_ErrorCode okFrontPanel_ActivateTriggerIn(okFrontPanel_HANDLE hnd, int epAddr, int bit);
ok_ErrorCode okFrontPanel_UpdateTriggerOuts(okFrontPanel_HANDLE hnd);
Bool okFrontPanel_IsTriggered(okFrontPanel_HANDLE hnd, int epAddr, unsigned long mask);
long okFrontPanel_WriteToPipeIn(okFrontPanel_HANDLE hnd, int epAddr, long length, unsigned char *data);
long okFrontPanel_WriteToBlockPipeIn(okFrontPanel_HANDLE hnd, int epAddr, int blockSize, long length, unsigned char *data);
long okFrontPanel_ReadFromPipeOut(okFrontPanel_HANDLE hnd, int epAddr, long length, unsigned char *data);
long okFrontPanel_ReadFromBlockPipeOut(okFrontPanel_HANDLE hnd, int epAddr, int blockSize, long length, unsigned char *data);
ok_ErrorCode okFrontPanel_ResetFPGA(okFrontPanel_HANDLE hnd);
