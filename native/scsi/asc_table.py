"""The ASC/ASCQ assignments of SPC-4/SPC-5 annex D (the T10 "asc-num" list).

Keyed by (ASC, ASCQ). Texts follow T10's wording so that what tapediag prints can be
compared with sg3_utils and with vendor manuals. Parameterised ranges (40/NN,
4D/NN, 70/NN) and vendor-specific codes are handled in ``native.scsi.asc``.
"""
from __future__ import annotations

_RAW = """
00 00 No additional sense information
00 01 Filemark detected
00 02 End-of-partition/medium detected
00 03 Setmark detected
00 04 Beginning-of-partition/medium detected
00 05 End-of-data detected
00 06 I/O process terminated
00 07 Programmable early warning detected
00 11 Audio play operation in progress
00 12 Audio play operation paused
00 13 Audio play operation successfully completed
00 14 Audio play operation stopped due to error
00 15 No current audio status to return
00 16 Operation in progress
00 17 Cleaning requested
00 18 Erase operation in progress
00 19 Locate operation in progress
00 1A Rewind operation in progress
00 1B Set capacity operation in progress
00 1C Verify operation in progress
00 1D ATA pass through information available
00 1E Conflicting SA creation request
00 1F Logical unit transitioning to another power condition
00 20 Extended copy information available
00 21 Atomic command aborted due to ACA
00 22 Deferred microcode is pending
01 00 No index/sector signal
02 00 No seek complete
03 00 Peripheral device write fault
03 01 No write current
03 02 Excessive write errors
04 00 Logical unit not ready, cause not reportable
04 01 Logical unit is in process of becoming ready
04 02 Logical unit not ready, initializing command required
04 03 Logical unit not ready, manual intervention required
04 04 Logical unit not ready, format in progress
04 05 Logical unit not ready, rebuild in progress
04 06 Logical unit not ready, recalculation in progress
04 07 Logical unit not ready, operation in progress
04 08 Logical unit not ready, long write in progress
04 09 Logical unit not ready, self-test in progress
04 0A Logical unit not accessible, asymmetric access state transition
04 0B Logical unit not accessible, target port in standby state
04 0C Logical unit not accessible, target port in unavailable state
04 0D Logical unit not ready, structure check required
04 0E Logical unit not ready, security session in progress
04 10 Logical unit not ready, auxiliary memory not accessible
04 11 Logical unit not ready, notify (enable spinup) required
04 12 Logical unit not ready, offline
04 13 Logical unit not ready, SA creation in progress
04 14 Logical unit not ready, space allocation in progress
04 15 Logical unit not ready, robotics disabled
04 16 Logical unit not ready, configuration required
04 17 Logical unit not ready, calibration required
04 18 Logical unit not ready, a door is open
04 19 Logical unit not ready, operating in sequential mode
04 1A Logical unit not ready, start stop unit command in progress
04 1B Logical unit not ready, sanitize in progress
04 1C Logical unit not ready, additional power use not yet granted
04 1D Logical unit not ready, configuration in progress
04 1E Logical unit not ready, microcode activation required
04 1F Logical unit not ready, microcode download required
04 20 Logical unit not ready, logical unit reset required
04 21 Logical unit not ready, hard reset required
04 22 Logical unit not ready, power cycle required
04 23 Logical unit not ready, affiliation required
04 24 Depopulation in progress
04 25 Depopulation restoration in progress
05 00 Logical unit does not respond to selection
06 00 No reference position found
07 00 Multiple peripheral devices selected
08 00 Logical unit communication failure
08 01 Logical unit communication time-out
08 02 Logical unit communication parity error
08 03 Logical unit communication CRC error (Ultra-DMA/32)
08 04 Unreachable copy target
09 00 Track following error
09 01 Tracking servo failure
09 02 Focus servo failure
09 03 Spindle servo failure
09 04 Head select fault
09 05 Vibration induced tracking error
0A 00 Error log overflow
0B 00 Warning
0B 01 Warning - specified temperature exceeded
0B 02 Warning - enclosure degraded
0B 03 Warning - background self-test failed
0B 04 Warning - background pre-scan detected medium error
0B 05 Warning - background medium scan detected medium error
0B 06 Warning - non-volatile cache now volatile
0B 07 Warning - degraded power to non-volatile cache
0B 08 Warning - power loss expected
0B 09 Warning - device statistics notification active
0B 0A Warning - high critical temperature limit exceeded
0B 0B Warning - low critical temperature limit exceeded
0B 0C Warning - high operating temperature limit exceeded
0B 0D Warning - low operating temperature limit exceeded
0B 0E Warning - high critical humidity limit exceeded
0B 0F Warning - low critical humidity limit exceeded
0B 10 Warning - high operating humidity limit exceeded
0B 11 Warning - low operating humidity limit exceeded
0B 12 Warning - microcode security at risk
0B 13 Warning - microcode digital signature validation failure
0B 14 Warning - physical element status change
0C 00 Write error
0C 01 Write error - recovered with auto reallocation
0C 02 Write error - auto reallocation failed
0C 03 Write error - recommend reassignment
0C 04 Compression check miscompare error
0C 05 Data expansion occurred during compression
0C 06 Block not compressible
0C 07 Write error - recovery needed
0C 08 Write error - recovery failed
0C 09 Write error - loss of streaming
0C 0A Write error - padding blocks added
0C 0B Auxiliary memory write error
0C 0C Write error - unexpected unsolicited data
0C 0D Write error - not enough unsolicited data
0C 0E Multiple write errors
0C 0F Defects in error window
0C 10 Incomplete multiple atomic write operations
0C 11 Write error - recovery scan needed
0C 12 Write error - insufficient zone resources
0D 00 Error detected by third party temporary initiator
0D 01 Third party device failure
0D 02 Copy target device not reachable
0D 03 Incorrect copy target device type
0D 04 Copy target device data underrun
0D 05 Copy target device data overrun
0E 00 Invalid information unit
0E 01 Information unit too short
0E 02 Information unit too long
0E 03 Invalid field in command information unit
10 00 Id CRC or ECC error
10 01 Logical block guard check failed
10 02 Logical block application tag check failed
10 03 Logical block reference tag check failed
10 04 Logical block protection error on recover buffered data
10 05 Logical block protection method error
11 00 Unrecovered read error
11 01 Read retries exhausted
11 02 Error too long to correct
11 03 Multiple read errors
11 04 Unrecovered read error - auto reallocate failed
11 05 L-EC uncorrectable error
11 06 CIRC unrecovered error
11 07 Data re-synchronization error
11 08 Incomplete block read
11 09 No gap found
11 0A Miscorrected error
11 0B Unrecovered read error - recommend reassignment
11 0C Unrecovered read error - recommend rewrite the data
11 0D De-compression CRC error
11 0E Cannot decompress using declared algorithm
11 0F Error reading UPC/EAN number
11 10 Error reading ISRC number
11 11 Read error - loss of streaming
11 12 Auxiliary memory read error
11 13 Read error - failed retransmission request
11 14 Read error - LBA marked bad by application client
11 15 Write after sanitize required
12 00 Address mark not found for id field
13 00 Address mark not found for data field
14 00 Recorded entity not found
14 01 Record not found
14 02 Filemark or setmark not found
14 03 End-of-data not found
14 04 Block sequence error
14 05 Record not found - recommend reassignment
14 06 Record not found - data auto-reallocated
14 07 Locate operation failure
15 00 Random positioning error
15 01 Mechanical positioning error
15 02 Positioning error detected by read of medium
16 00 Data synchronization mark error
16 01 Data sync error - data rewritten
16 02 Data sync error - recommend rewrite
16 03 Data sync error - data auto-reallocated
16 04 Data sync error - recommend reassignment
17 00 Recovered data with no error correction applied
17 01 Recovered data with retries
17 02 Recovered data with positive head offset
17 03 Recovered data with negative head offset
17 04 Recovered data with retries and/or CIRC applied
17 05 Recovered data using previous sector id
17 06 Recovered data without ECC - data auto-reallocated
17 07 Recovered data without ECC - recommend reassignment
17 08 Recovered data without ECC - recommend rewrite
17 09 Recovered data without ECC - data rewritten
18 00 Recovered data with error correction applied
18 01 Recovered data with error corr. & retries applied
18 02 Recovered data - data auto-reallocated
18 03 Recovered data with CIRC
18 04 Recovered data with L-EC
18 05 Recovered data - recommend reassignment
18 06 Recovered data - recommend rewrite
18 07 Recovered data with ECC - data rewritten
18 08 Recovered data with linking
19 00 Defect list error
19 01 Defect list not available
19 02 Defect list error in primary list
19 03 Defect list error in grown list
1A 00 Parameter list length error
1B 00 Synchronous data transfer error
1C 00 Defect list not found
1C 01 Primary defect list not found
1C 02 Grown defect list not found
1D 00 Miscompare during verify operation
1D 01 Miscompare verify of unmapped LBA
1E 00 Recovered id with ECC correction
1F 00 Partial defect list transfer
20 00 Invalid command operation code
20 01 Access denied - initiator pending-enrolled
20 02 Access denied - no access rights
20 03 Access denied - invalid mgmt id key
20 04 Illegal command while in write capable state
20 05 Write type operation while in read capable state
20 06 Illegal command while in explicit address mode
20 07 Illegal command while in implicit address mode
20 08 Access denied - enrollment conflict
20 09 Access denied - invalid LU identifier
20 0A Access denied - invalid proxy token
20 0B Access denied - ACL LUN conflict
20 0C Illegal command when not in append-only mode
20 0D Not an administrative logical unit
20 0E Not a subsidiary logical unit
20 0F Not a conglomerate logical unit
21 00 Logical block address out of range
21 01 Invalid element address
21 02 Invalid address for write
21 03 Invalid write crossing layer jump
21 04 Unaligned write command
21 05 Write boundary violation
21 06 Attempt to read invalid data
21 07 Read boundary violation
21 08 Misaligned write command
21 09 Attempt to access gap zone
22 00 Illegal function (use 20 00, 24 00, or 26 00)
23 00 Invalid token operation, cause not reportable
23 01 Invalid token operation, unsupported token type
23 02 Invalid token operation, remote token usage not supported
23 03 Invalid token operation, remote ROD token creation not supported
23 04 Invalid token operation, token unknown
23 05 Invalid token operation, token corrupt
23 06 Invalid token operation, token revoked
23 07 Invalid token operation, token expired
23 08 Invalid token operation, token cancelled
23 09 Invalid token operation, token deleted
23 0A Invalid token operation, invalid token length
24 00 Invalid field in cdb
24 01 CDB decryption error
24 02 Invalid cdb field while in explicit block model
24 03 Invalid cdb field while in implicit block model
24 04 Security audit value frozen
24 05 Security working key frozen
24 06 Nonce not unique
24 07 Nonce timestamp out of range
24 08 Invalid XCDB
24 09 Invalid fast format
25 00 Logical unit not supported
26 00 Invalid field in parameter list
26 01 Parameter not supported
26 02 Parameter value invalid
26 03 Threshold parameters not supported
26 04 Invalid release of persistent reservation
26 05 Data decryption error
26 06 Too many target descriptors
26 07 Unsupported target descriptor type code
26 08 Too many segment descriptors
26 09 Unsupported segment descriptor type code
26 0A Unexpected inexact segment
26 0B Inline data length exceeded
26 0C Invalid operation for copy source or destination
26 0D Copy segment granularity violation
26 0E Invalid parameter while port is enabled
26 0F Invalid data-out buffer integrity check value
26 10 Data decryption key fail limit reached
26 11 Incomplete key-associated data set
26 12 Vendor specific key reference not found
26 13 Application tag mode page is invalid
26 14 Tape stream mirroring prevented
26 15 Copy source or copy destination not authorized
26 16 Fast copy not possible
27 00 Write protected
27 01 Hardware write protected
27 02 Logical unit software write protected
27 03 Associated write protect
27 04 Persistent write protect
27 05 Permanent write protect
27 06 Conditional write protect
27 07 Space allocation failed write protect
27 08 Zone is read only
28 00 Not ready to ready change, medium may have changed
28 01 Import or export element accessed
28 02 Format-layer may have changed
28 03 Import/export element accessed, medium changed
29 00 Power on, reset, or bus device reset occurred
29 01 Power on occurred
29 02 SCSI bus reset occurred
29 03 Bus device reset function occurred
29 04 Device internal reset
29 05 Transceiver mode changed to single-ended
29 06 Transceiver mode changed to LVD
29 07 I_T nexus loss occurred
2A 00 Parameters changed
2A 01 Mode parameters changed
2A 02 Log parameters changed
2A 03 Reservations preempted
2A 04 Reservations released
2A 05 Registrations preempted
2A 06 Asymmetric access state changed
2A 07 Implicit asymmetric access state transition failed
2A 08 Priority changed
2A 09 Capacity data has changed
2A 0A Error history I_T nexus cleared
2A 0B Error history snapshot released
2A 0C Error recovery attributes have changed
2A 0D Data encryption capabilities changed
2A 10 Timestamp changed
2A 11 Data encryption parameters changed by another i_t nexus
2A 12 Data encryption parameters changed by vendor specific event
2A 13 Data encryption key instance counter has changed
2A 14 SA creation capabilities data has changed
2A 15 Medium removal prevention preempted
2A 16 Zone reset write pointer recommended
2B 00 Copy cannot execute since host cannot disconnect
2C 00 Command sequence error
2C 01 Too many windows specified
2C 02 Invalid combination of windows specified
2C 03 Current program area is not empty
2C 04 Current program area is empty
2C 05 Illegal power condition request
2C 06 Persistent prevent conflict
2C 07 Previous busy status
2C 08 Previous task set full status
2C 09 Previous reservation conflict status
2C 0A Partition or collection contains user objects
2C 0B Not reserved
2C 0C ORWRITE generation does not match
2C 0D Reset write pointer not allowed
2C 0E Zone is offline
2C 0F Stream not open
2C 10 Unwritten data in zone
2C 11 Descriptor format sense data required
2C 12 Zone is inactive
2C 13 Well known logical unit access required
2D 00 Overwrite error on update in place
2E 00 Insufficient time for operation
2E 01 Command timeout before processing
2E 02 Command timeout during processing
2E 03 Command timeout during processing due to error recovery
2F 00 Commands cleared by another initiator
2F 01 Commands cleared by power loss notification
2F 02 Commands cleared by device server
2F 03 Some commands cleared by queuing layer event
30 00 Incompatible medium installed
30 01 Cannot read medium - unknown format
30 02 Cannot read medium - incompatible format
30 03 Cleaning cartridge installed
30 04 Cannot write medium - unknown format
30 05 Cannot write medium - incompatible format
30 06 Cannot format medium - incompatible medium
30 07 Cleaning failure
30 08 Cannot write - application code mismatch
30 09 Current session not fixated for append
30 0A Cleaning request rejected
30 0B Cleaning tape expired
30 0C WORM medium - overwrite attempted
30 0D WORM medium - integrity check
30 10 Medium not formatted
30 11 Incompatible volume type
30 12 Incompatible volume qualifier
30 13 Cleaning volume expired
31 00 Medium format corrupted
31 01 Format command failed
31 02 Zoned formatting failed due to spare linking
31 03 Sanitize command failed
31 04 Depopulation failed
31 05 Depopulation restoration failed
32 00 No defect spare location available
32 01 Defect list update failure
33 00 Tape length error
34 00 Enclosure failure
35 00 Enclosure services failure
35 01 Unsupported enclosure function
35 02 Enclosure services unavailable
35 03 Enclosure services transfer failure
35 04 Enclosure services transfer refused
35 05 Enclosure services checksum error
36 00 Ribbon, ink, or toner failure
37 00 Rounded parameter
38 00 Event status notification
38 02 ESN - power management class event
38 04 ESN - media class event
38 06 ESN - device busy class event
38 07 Thin provisioning soft threshold reached
38 08 Depopulation interrupted
39 00 Saving parameters not supported
3A 00 Medium not present
3A 01 Medium not present - tray closed
3A 02 Medium not present - tray open
3A 03 Medium not present - loadable
3A 04 Medium not present - medium auxiliary memory accessible
3B 00 Sequential positioning error
3B 01 Tape position error at beginning-of-medium
3B 02 Tape position error at end-of-medium
3B 03 Tape or electronic vertical forms unit not ready
3B 04 Slew failure
3B 05 Paper jam
3B 06 Failed to sense top-of-form
3B 07 Failed to sense bottom-of-form
3B 08 Reposition error
3B 09 Read past end of medium
3B 0A Read past beginning of medium
3B 0B Position past end of medium
3B 0C Position past beginning of medium
3B 0D Medium destination element full
3B 0E Medium source element empty
3B 0F End of medium reached
3B 11 Medium magazine not accessible
3B 12 Medium magazine removed
3B 13 Medium magazine inserted
3B 14 Medium magazine locked
3B 15 Medium magazine unlocked
3B 16 Mechanical positioning or changer error
3B 17 Read past end of user object
3B 18 Element disabled
3B 19 Element enabled
3B 1A Data transfer device removed
3B 1B Data transfer device inserted
3B 1C Too many logical objects on partition to support operation
3B 20 Element static information changed
3D 00 Invalid bits in identify message
3E 00 Logical unit has not self-configured yet
3E 01 Logical unit failure
3E 02 Timeout on logical unit
3E 03 Logical unit failed self-test
3E 04 Logical unit unable to update self-test log
3F 00 Target operating conditions have changed
3F 01 Microcode has been changed
3F 02 Changed operating definition
3F 03 Inquiry data has changed
3F 04 Component device attached
3F 05 Device identifier changed
3F 06 Redundancy group created or modified
3F 07 Redundancy group deleted
3F 08 Spare created or modified
3F 09 Spare deleted
3F 0A Volume set created or modified
3F 0B Volume set deleted
3F 0C Volume set deassigned
3F 0D Volume set reassigned
3F 0E Reported luns data has changed
3F 0F Echo buffer overwritten
3F 10 Medium loadable
3F 11 Medium auxiliary memory accessible
3F 12 iSCSI IP address added
3F 13 iSCSI IP address removed
3F 14 iSCSI IP address changed
3F 15 Inspect referrals sense descriptors
3F 16 Microcode has been changed without reset
3F 17 Zone transition to full
3F 18 Bind completed
3F 19 Bind redirected
3F 1A Subsidiary binding changed
40 00 Ram failure (should use 40 nn)
41 00 Data path failure (should use 40 nn)
42 00 Power-on or self-test failure (should use 40 nn)
43 00 Message error
44 00 Internal target failure
44 01 Persistent reservation information lost
44 71 ATA device failed set features
45 00 Select or reselect failure
46 00 Unsuccessful soft reset
47 00 SCSI parity error
47 01 Data phase CRC error detected
47 02 SCSI parity error detected during ST data phase
47 03 Information unit iuCRC error detected
47 04 Asynchronous information protection error detected
47 05 Protocol service CRC error
47 06 Phy test function in progress
47 7F Some commands cleared by iSCSI protocol event
48 00 Initiator detected error message received
49 00 Invalid message error
4A 00 Command phase error
4B 00 Data phase error
4B 01 Invalid target port transfer tag received
4B 02 Too much write data
4B 03 ACK/NAK timeout
4B 04 NAK received
4B 05 Data offset error
4B 06 Initiator response timeout
4B 07 Connection lost
4B 08 Data-in buffer overflow - data buffer size
4B 09 Data-in buffer overflow - data buffer descriptor area
4B 0A Data-in buffer error
4B 0B Data-out buffer overflow - data buffer size
4B 0C Data-out buffer overflow - data buffer descriptor area
4B 0D Data-out buffer error
4B 0E PCIe fabric error
4B 0F PCIe completion timeout
4B 10 PCIe completer abort
4B 11 PCIe poisoned TLP received
4B 12 PCIe ECRC check failed
4B 13 PCIe unsupported request
4B 14 PCIe ACS violation
4B 15 PCIe TLP prefix blocked
4C 00 Logical unit failed self-configuration
4E 00 Overlapped commands attempted
50 00 Write append error
50 01 Write append position error
50 02 Position error related to timing
51 00 Erase failure
51 01 Erase failure - incomplete erase operation detected
52 00 Cartridge fault
53 00 Media load or eject failed
53 01 Unload tape failure
53 02 Medium removal prevented
53 03 Medium removal prevented by data transfer element
53 04 Medium thread or unthread failure
53 05 Volume identifier invalid
53 06 Volume identifier missing
53 07 Duplicate volume identifier
53 08 Element status unknown
53 09 Data transfer device error - load failed
53 0A Data transfer device error - unload failed
53 0B Data transfer device error - unload missing
53 0C Data transfer device error - eject failed
53 0D Data transfer device error - library communication failed
54 00 SCSI to host system interface failure
55 00 System resource failure
55 01 System buffer full
55 02 Insufficient reservation resources
55 03 Insufficient resources
55 04 Insufficient registration resources
55 05 Insufficient access control resources
55 06 Auxiliary memory out of space
55 07 Quota error
55 08 Maximum number of supplemental decryption keys exceeded
55 09 Medium auxiliary memory not accessible
55 0A Data currently unavailable
55 0B Insufficient power for operation
55 0C Insufficient resources to create ROD
55 0D Insufficient resources to create ROD token
55 0E Insufficient zone resources
55 0F Insufficient zone resources to complete write
55 10 Maximum number of streams open
55 11 Insufficient resources to bind
57 00 Unable to recover table-of-contents
58 00 Generation does not exist
59 00 Updated block read
5A 00 Operator request or state change input
5A 01 Operator medium removal request
5A 02 Operator selected write protect
5A 03 Operator selected write permit
5B 00 Log exception
5B 01 Threshold condition met
5B 02 Log counter at maximum
5B 03 Log list codes exhausted
5C 00 RPL status change
5C 01 Spindles synchronized
5C 02 Spindles not synchronized
5D 00 Failure prediction threshold exceeded
5D 01 Media failure prediction threshold exceeded
5D 02 Logical unit failure prediction threshold exceeded
5D 03 Spare area exhaustion prediction threshold exceeded
5D 73 Media impending failure endurance limit met
5D FF Failure prediction threshold exceeded (false)
5E 00 Low power condition on
5E 01 Idle condition activated by timer
5E 02 Standby condition activated by timer
5E 03 Idle condition activated by command
5E 04 Standby condition activated by command
5E 05 Idle_b condition activated by timer
5E 06 Idle_b condition activated by command
5E 07 Idle_c condition activated by timer
5E 08 Idle_c condition activated by command
5E 09 Standby_y condition activated by timer
5E 0A Standby_y condition activated by command
5E 41 Power state change to active
5E 42 Power state change to idle
5E 43 Power state change to standby
5E 45 Power state change to sleep
5E 47 Power state change to device control
60 00 Lamp failure
61 00 Video acquisition error
61 01 Unable to acquire video
61 02 Out of focus
62 00 Scan head positioning error
63 00 End of user area encountered on this track
63 01 Packet does not fit in available space
64 00 Illegal mode for this track
64 01 Invalid packet size
65 00 Voltage fault
66 00 Automatic document feeder cover up
66 01 Automatic document feeder lift up
66 02 Document jam in automatic document feeder
66 03 Document miss feed automatic in document feeder
67 00 Configuration failure
67 01 Configuration of incapable logical units failed
67 02 Add logical unit failed
67 03 Modification of logical unit failed
67 04 Exchange of logical unit failed
67 05 Remove of logical unit failed
67 06 Attachment of logical unit failed
67 07 Creation of logical unit failed
67 08 Assign failure occurred
67 09 Multiply assigned logical unit
67 0A Set target port groups command failed
67 0B ATA device feature not enabled
67 0C Command rejected
67 0D Explicit bind not allowed
68 00 Logical unit not configured
68 01 Subsidiary logical unit not configured
69 00 Data loss on logical unit
69 01 Multiple logical unit failures
69 02 Parity/data mismatch
6A 00 Informational, refer to log
6B 00 State change has occurred
6B 01 Redundancy level got better
6B 02 Redundancy level got worse
6C 00 Rebuild failure occurred
6D 00 Recalculate failure occurred
6E 00 Command to logical unit failed
6F 00 Copy protection key exchange failure - authentication failure
6F 01 Copy protection key exchange failure - key not present
6F 02 Copy protection key exchange failure - key not established
6F 03 Read of scrambled sector without authentication
6F 04 Media region code is mismatched to logical unit region
6F 05 Drive region must be permanent/region reset count error
6F 06 Insufficient block count for binding nonce recording
6F 07 Conflict in binding nonce recording
6F 08 Insufficient permission
6F 09 Invalid drive-host pairing server
6F 0A Drive-host pairing suspended
71 00 Decompression exception long algorithm id
72 00 Session fixation error
72 01 Session fixation error writing lead-in
72 02 Session fixation error writing lead-out
72 03 Session fixation error - incomplete track in session
72 04 Empty or partially written reserved track
72 05 No more track reservations allowed
72 06 RMZ extension is not allowed
72 07 No more test zone extensions are allowed
73 00 CD control error
73 01 Power calibration area almost full
73 02 Power calibration area is full
73 03 Power calibration area error
73 04 Program memory area update failure
73 05 Program memory area is full
73 06 RMA/PMA is almost full
73 10 Current power calibration area almost full
73 11 Current power calibration area is full
73 17 RDZ is full
74 00 Security error
74 01 Unable to decrypt data
74 02 Unencrypted data encountered while decrypting
74 03 Incorrect data encryption key
74 04 Cryptographic integrity validation failed
74 05 Error decrypting data
74 06 Unknown signature verification key
74 07 Encryption parameters not useable
74 08 Digital signature validation failure
74 09 Encryption mode mismatch on read
74 0A Encrypted block not raw read enabled
74 0B Incorrect encryption parameters
74 0C Unable to decrypt parameter list
74 0D Encryption algorithm disabled
74 10 SA creation parameter value invalid
74 11 SA creation parameter value rejected
74 12 Invalid SA usage
74 21 Data encryption configuration prevented
74 30 SA creation parameter not supported
74 40 Authentication failed
74 61 External data encryption key manager access error
74 62 External data encryption key manager error
74 63 External data encryption key not found
74 64 External data encryption request not authorized
74 6E External data encryption control timeout
74 6F External data encryption control error
74 71 Logical unit access not authorized
74 79 Security conflict in translated device
"""


# 5D/x0-x9A..: SMART-style "impending failure" codes, a product of component and cause.
_IMPENDING_COMPONENTS = {1: "Hardware", 2: "Controller", 3: "Data channel", 4: "Servo", 5: "Spindle", 6: "Firmware"}
_IMPENDING_CAUSES = (
    "general hard drive failure",
    "drive error rate too high",
    "data error rate too high",
    "seek error rate too high",
    "too many block reassigns",
    "access times too high",
    "start unit times too high",
    "channel parametrics",
    "controller detected",
    "throughput performance",
    "seek time performance",
    "spin-up retry count",
    "drive calibration retry count",
)


def _load() -> dict[tuple[int, int], str]:
    table: dict[tuple[int, int], str] = {}
    for line in _RAW.strip().splitlines():
        asc, ascq, text = line.split(" ", 2)
        table[(int(asc, 16), int(ascq, 16))] = text
    for hi, component in _IMPENDING_COMPONENTS.items():
        for lo, cause in enumerate(_IMPENDING_CAUSES):
            table[(0x5D, hi << 4 | lo)] = f"{component} impending failure {cause}"
    table[(0x5D, 0x1D)] = "Hardware impending failure power loss protection circuit"
    return table


ASC_ASCQ: dict[tuple[int, int], str] = _load()
