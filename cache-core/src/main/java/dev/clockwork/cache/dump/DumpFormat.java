package dev.clockwork.cache.dump;

import java.nio.ByteOrder;

/**
 * The layout of a cache dump: a header, blocks of entry records, a trailer. Little-endian
 * throughout. Every part carries a CRC32C (Castagnoli), so that a flipped byte, a cut, a foreign
 * file or another version is refused before anything is believed: a block's length is trusted
 * only after its header's own check, and its records only after the block's check.
 *
 * <h2>File header (32 bytes)</h2>
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |               Magic: "CLKWDUMP" in ASCII                      | 0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Format version (1)                              | 8
 *  +---------------------------------------------------------------+
 *  |               Header length (32)                              | 12
 *  +---------------------------------------------------------------+
 *  |               Order: 1 by clock countdown, 2 by recency       | 16
 *  +---------------------------------------------------------------+
 *  |               Writer's block capacity in bytes                | 20
 *  +---------------------------------------------------------------+
 *  |               Reserved (0)                                    | 24
 *  +---------------------------------------------------------------+
 *  |               CRC32C of bytes 0..27                           | 28
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <h2>Block (16 + length + 4 bytes)</h2>
 * <pre>
 *  +---------------------------------------------------------------+
 *  |               Body length in bytes (&gt; 0; -1: the trailer)    | 0
 *  +---------------------------------------------------------------+
 *  |               Record count                                    | 4
 *  +---------------------------------------------------------------+
 *  |               Block sequence number, from 0                   | 8
 *  +---------------------------------------------------------------+
 *  |               CRC32C of bytes 0..11                           | 12
 *  +---------------------------------------------------------------+
 *  |               Records (body length bytes)                    ...
 *  +---------------------------------------------------------------+
 *  |               CRC32C of bytes 0..11 and of the body           |
 *  +---------------------------------------------------------------+
 * </pre>
 * A block holds the records that fit the writer's block capacity, or one record alone that
 * does not.
 *
 * <h2>Record (32 + value length bytes, unaligned)</h2>
 * <pre>
 *  +---------------------------------------------------------------+
 *  |               Key, first half (key0, as the caller gave it)   | 0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Key, second half (key1)                         | 8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Charge (&gt;= 0, metadata not included)          | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Value length in bytes (&gt;= 0)                   | 24
 *  +---------------+-----------------------------------------------+
 *  | Priority (0-2)|               Reserved (0)                    | 28
 *  +---------------+-----------------------------------------------+
 *  |               Value bytes                                    ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The key is the caller's, not a hash: a cache's hash seed differs from one process to the next,
 * and the keys a storage engine gives ({@code dev.clockwork.cache.key}) stay the same.
 *
 * <h2>Trailer (32 bytes, after a block header of length -1)</h2>
 * <pre>
 *  +---------------------------------------------------------------+
 *  |               Entry count                                     | 0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Value bytes, summed                             | 8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               Whole-file check: CRC32C over the header's CRC  | 16
 *  |               and every block's CRC, in order (4 bytes each)  |
 *  +---------------------------------------------------------------+
 *  |               End magic: "DEND" in ASCII                      | 20
 *  +---------------------------------------------------------------+
 *  |               Reserved (0)                                    | 24
 *  +---------------------------------------------------------------+
 *  |               CRC32C of bytes 0..27                           | 28
 *  +---------------------------------------------------------------+
 * </pre>
 * Nothing may follow the trailer.
 */
public final class DumpFormat {
    /** "CLKWDUMP" read as a little-endian long. */
    public static final long MAGIC = 0x504D5544574B4C43L;
    /** The only version this code writes and reads. */
    public static final int VERSION = 1;
    /** The file header's length. */
    public static final int HEADER_BYTES = 32;
    /** A block header's length. */
    public static final int BLOCK_HEADER_BYTES = 16;
    /** The CRC32C after a block's body. */
    public static final int BLOCK_CRC_BYTES = 4;
    /** A record's length before its value. */
    public static final int RECORD_HEADER_BYTES = 32;
    /** The trailer's length after its block header. */
    public static final int TRAILER_BYTES = 32;
    /** The body length that marks the trailer. */
    public static final int TRAILER_MARK = -1;
    /** "DEND" read as a little-endian int. */
    public static final int END_MAGIC = 0x444E4544;
    /** Entries in order of the clock countdown, highest first (HyperClock caches). */
    public static final int ORDER_CLOCK = 1;
    /** Entries in order of recency, most recent first (LRU caches). */
    public static final int ORDER_RECENCY = 2;
    /** Largest block body: a value longer than this less its record header cannot be dumped. */
    public static final int MAX_BLOCK_BYTES = Integer.MAX_VALUE - 1024;
    /** The writer's block capacity unless told otherwise: 1 MiB. */
    public static final int DEFAULT_BLOCK_BYTES = 1 << 20;
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private DumpFormat() {
    }
}
