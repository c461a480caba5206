package dev.clockwork.cache.dump;

import static dev.clockwork.cache.dump.DumpFormat.BLOCK_CRC_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.BLOCK_HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.RECORD_HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.TRAILER_BYTES;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpFormatException.Problem;
import dev.clockwork.cache.internal.Args;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.zip.CRC32C;

/**
 * Reads a dump ({@link DumpFormat}) record by record, verifying as it goes: the header before
 * anything, each block (header check, body check, then the structure of every record in it)
 * before its first record is handed out, and the trailer (entry count, value bytes, whole-file
 * check, end of stream) before {@link #next()} answers {@code false}. So a caller sees only
 * records of blocks that were whole, and learns that the file was whole only at the end: what
 * it did with the records before must be undone if {@link #next()} throws.
 *
 * <p>One heap buffer, a block's size (grown once if a block holds a record longer than that),
 * holds the bytes read; the record accessors read from it and allocate nothing.
 * Not thread-safe.
 */
public final class DumpReader {
    private static final Priority[] PRIORITIES = Priority.values();

    private final ReadableByteChannel in;
    /** Unread bytes between position and limit; a verified block stays in it until consumed. */
    private ByteBuffer buffer;
    private final CRC32C crc = new CRC32C();
    private final CRC32C fileCrc = new CRC32C();
    private final int order;
    /** Bytes of the stream before the buffer's position: where things are, for messages. */
    private long consumed;
    private int blockSequence;
    private long blockOffset;
    private int recordsLeft;
    private int recordAt;
    private long entries;
    private long valueBytes;
    private boolean done;
    private long key0;
    private long key1;
    private long charge;
    private Priority priority;
    private int valueLength;

    /**
     * Reads and checks the file header.
     *
     * @param in the dump; read from its current position, not closed here
     * @throws DumpFormatException if it is not a dump, another version, cut short or corrupt
     * @throws IOException if the channel fails
     */
    public DumpReader(ReadableByteChannel in) throws IOException {
        this.in = Args.requireNonNull("in", in);
        this.buffer = ByteBuffer.allocate(HEADER_BYTES).order(DumpFormat.ORDER).limit(0);
        int got = fill(HEADER_BYTES);
        if (got < 8 || buffer.getLong(0) != DumpFormat.MAGIC) {
            if (got < 8 && isMagicPrefix(got)) {
                throw truncated("inside the file header");
            }
            throw new DumpFormatException(Problem.NOT_A_DUMP, "not a cache dump: the file does"
                    + " not start with the magic \"CLKWDUMP\"");
        }
        if (got < HEADER_BYTES) {
            throw truncated("inside the file header");
        }
        int version = buffer.getInt(8);
        if (version != DumpFormat.VERSION) {
            throw new DumpFormatException(Problem.UNSUPPORTED_VERSION, "cache dump format"
                    + " version " + version + " is not supported: this reader reads version "
                    + DumpFormat.VERSION + " only");
        }
        int headerCrc = buffer.getInt(HEADER_BYTES - 4);
        if (crcOf(0, HEADER_BYTES - 4) != headerCrc) {
            throw checksum("file header (bytes 0..27)");
        }
        this.order = buffer.getInt(16);
        int blockBytes = buffer.getInt(20);
        if (buffer.getInt(12) != HEADER_BYTES || buffer.getInt(24) != 0
                || (order != DumpFormat.ORDER_CLOCK && order != DumpFormat.ORDER_RECENCY)
                || blockBytes < 64 || blockBytes > DumpFormat.MAX_BLOCK_BYTES) {
            throw malformed("file header: a field holds what no writer writes");
        }
        chainFileCrc(headerCrc);
        consume(HEADER_BYTES);
        // Room for a whole block of the writer's size (records longer than it grow the buffer).
        grow(Math.min(blockBytes, 64 << 20) + BLOCK_HEADER_BYTES + BLOCK_CRC_BYTES);
    }

    /**
     * The order the writer put the entries in.
     *
     * @return {@link DumpFormat#ORDER_CLOCK} or {@link DumpFormat#ORDER_RECENCY}
     */
    public int order() {
        return order;
    }

    /**
     * Moves to the next record, reading and verifying its block first when it is the block's
     * first; at the end verifies the trailer and that nothing follows it.
     *
     * @return {@code true} if a record is available, {@code false} once the whole dump has been
     *     read and verified
     * @throws DumpFormatException if the dump is cut short or corrupt
     * @throws IOException if the channel fails
     */
    public boolean next() throws IOException {
        while (recordsLeft == 0) {
            if (done || !nextBlock()) {
                return false;
            }
        }
        int at = recordAt;
        key0 = buffer.getLong(at);
        key1 = buffer.getLong(at + 8);
        charge = buffer.getLong(at + 16);
        valueLength = buffer.getInt(at + 24);
        priority = PRIORITIES[buffer.get(at + 28)];
        recordAt = at + RECORD_HEADER_BYTES + valueLength;
        recordsLeft--;
        return true;
    }

    /**
     * The current record's key, first half.
     *
     * @return the current record's key, first half
     */
    public long key0() {
        return key0;
    }

    /**
     * The current record's key, second half.
     *
     * @return the current record's key, second half
     */
    public long key1() {
        return key1;
    }

    /**
     * The current record's charge.
     *
     * @return the current record's charge
     */
    public long charge() {
        return charge;
    }

    /**
     * The current record's priority.
     *
     * @return the current record's priority
     */
    public Priority priority() {
        return priority;
    }

    /**
     * The array holding the current record's value (valid until the next call).
     *
     * @return the array holding the current record's value (valid until the next call)
     */
    public byte[] valueArray() {
        return buffer.array();
    }

    /**
     * Where in {@link #valueArray()} the current record's value starts.
     *
     * @return where in {@link #valueArray()} the current record's value starts
     */
    public int valueOffset() {
        return recordAt - valueLength;
    }

    /**
     * The current record's value length in bytes.
     *
     * @return the current record's value length in bytes
     */
    public int valueLength() {
        return valueLength;
    }

    /**
     * The records handed out so far (all of them once {@link #next()} is false).
     *
     * @return the records handed out so far (all of them once {@link #next()} is false)
     */
    public long entries() {
        return entries;
    }

    /**
     * The bytes of the stream read so far.
     *
     * @return the bytes of the stream read so far
     */
    public long fileBytes() {
        return consumed + buffer.remaining();
    }

    // ---------------------------------------------------------------- blocks

    /** Reads and verifies the next block, or the trailer (then returns {@code false}). */
    private boolean nextBlock() throws IOException {
        blockOffset = consumed;
        if (fill(BLOCK_HEADER_BYTES) < BLOCK_HEADER_BYTES) {
            throw truncated(blockSequence == 0 ? "after the file header, before the trailer"
                    : "after block " + (blockSequence - 1) + ", before the trailer");
        }
        int p = buffer.position();
        int length = buffer.getInt(p);
        int records = buffer.getInt(p + 4);
        if (crcOf(p, p + BLOCK_HEADER_BYTES - 4) != buffer.getInt(p + BLOCK_HEADER_BYTES - 4)) {
            throw checksum(where() + " header");
        }
        if (buffer.getInt(p + 8) != blockSequence) {
            throw malformed(where() + ": sequence number " + buffer.getInt(p + 8)
                    + " where " + blockSequence + " belongs");
        }
        if (length == DumpFormat.TRAILER_MARK) {
            readTrailer();
            return false;
        }
        if (length < RECORD_HEADER_BYTES || length > DumpFormat.MAX_BLOCK_BYTES || records < 1) {
            throw malformed(where() + ": " + records + " records in " + length + " bytes");
        }
        int total = BLOCK_HEADER_BYTES + length + BLOCK_CRC_BYTES;
        if (fill(total) < total) {
            throw truncated("inside " + where());
        }
        p = buffer.position();
        crc.reset();
        update(p, p + BLOCK_HEADER_BYTES - 4);
        update(p + BLOCK_HEADER_BYTES, p + BLOCK_HEADER_BYTES + length);
        int blockCrc = buffer.getInt(p + BLOCK_HEADER_BYTES + length);
        if ((int) crc.getValue() != blockCrc) {
            throw checksum(where() + " (" + records + " records, " + length + " bytes)");
        }
        checkRecords(p + BLOCK_HEADER_BYTES, length, records);
        chainFileCrc(blockCrc);
        recordAt = p + BLOCK_HEADER_BYTES;
        recordsLeft = records;
        consume(total);
        blockSequence++;
        return true;
    }

    /** The structure of a verified block's records: each inside the block, fields in range. */
    private void checkRecords(int from, int length, int records) throws DumpFormatException {
        int at = from;
        int end = from + length;
        for (int i = 0; i < records; i++) {
            if (end - at < RECORD_HEADER_BYTES) {
                throw malformed(where() + ", record " + i + ": past the block's end");
            }
            int size = buffer.getInt(at + 24);
            int flags = buffer.getInt(at + 28);
            if (size < 0 || size > end - at - RECORD_HEADER_BYTES || buffer.getLong(at + 16) < 0
                    || flags < 0 || flags >= PRIORITIES.length) {
                throw malformed(where() + ", record " + i + ": length " + size + ", charge "
                        + buffer.getLong(at + 16) + ", priority and reserved bytes " + flags);
            }
            at += RECORD_HEADER_BYTES + size;
            entries++;
            valueBytes += size;
        }
        if (at != end) {
            throw malformed(where() + ": " + (end - at) + " bytes after its last record");
        }
    }

    private void readTrailer() throws IOException {
        int total = BLOCK_HEADER_BYTES + TRAILER_BYTES;
        if (fill(total) < total) {
            throw truncated("inside the trailer");
        }
        int t = buffer.position() + BLOCK_HEADER_BYTES;
        if (crcOf(t, t + TRAILER_BYTES - 4) != buffer.getInt(t + TRAILER_BYTES - 4)) {
            throw checksum("trailer");
        }
        if (buffer.getInt(t + 20) != DumpFormat.END_MAGIC || buffer.getInt(t + 24) != 0) {
            throw malformed("trailer: no end magic \"DEND\"");
        }
        long count = buffer.getLong(t);
        long bytes = buffer.getLong(t + 8);
        if (count != entries || bytes != valueBytes) {
            throw malformed("trailer: it counts " + count + " entries of " + bytes
                    + " value bytes, the blocks held " + entries + " of " + valueBytes);
        }
        if (buffer.getInt(t + 16) != (int) fileCrc.getValue()) {
            throw checksum("whole-file check in the trailer (blocks missing, repeated or"
                    + " reordered)");
        }
        consume(total);
        done = true;
        if (fill(1) > 0) {
            throw new DumpFormatException(Problem.TRAILING_BYTES, "bytes follow the trailer at"
                    + " offset " + consumed + ": not one whole dump");
        }
    }

    // ---------------------------------------------------------------- buffer

    /**
     * Reads until {@code n} unread bytes are buffered or the stream ends; returns how many are.
     */
    private int fill(int n) throws IOException {
        if (buffer.remaining() >= n) {
            return buffer.remaining();
        }
        if (buffer.capacity() < n) {
            grow(n);
        }
        buffer.compact(); // unread bytes to the front; now in fill mode
        try {
            while (buffer.position() < n) {
                if (in.read(buffer) < 0) {
                    break;
                }
            }
        } finally {
            buffer.flip();
        }
        return buffer.remaining();
    }

    private void grow(int capacity) {
        if (buffer.capacity() >= capacity) {
            return;
        }
        ByteBuffer bigger = ByteBuffer.allocate(capacity).order(DumpFormat.ORDER);
        bigger.put(buffer).flip();
        buffer = bigger;
    }

    private void consume(int n) {
        buffer.position(buffer.position() + n);
        consumed += n;
    }

    private int crcOf(int from, int to) {
        crc.reset();
        update(from, to);
        return (int) crc.getValue();
    }

    private void update(int from, int to) {
        crc.update(buffer.array(), from, to - from);
    }

    private void chainFileCrc(int value) {
        for (int i = 0; i < 4; i++) {
            fileCrc.update(value >>> (8 * i));
        }
    }

    private boolean isMagicPrefix(int got) {
        for (int i = 0; i < got; i++) {
            if (buffer.get(i) != (byte) (DumpFormat.MAGIC >>> (8 * i))) {
                return false;
            }
        }
        return true;
    }

    private String where() {
        return "block " + blockSequence + " at offset " + blockOffset;
    }

    private DumpFormatException truncated(String where) {
        return new DumpFormatException(Problem.TRUNCATED, "the cache dump is truncated: it ends"
                + " after " + (consumed + buffer.remaining()) + " bytes, " + where);
    }

    private static DumpFormatException checksum(String what) {
        return new DumpFormatException(Problem.CHECKSUM_MISMATCH, "cache dump corrupt: CRC32C"
                + " mismatch in the " + what);
    }

    private static DumpFormatException malformed(String what) {
        return new DumpFormatException(Problem.MALFORMED, "cache dump malformed: " + what);
    }
}
