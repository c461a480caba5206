package dev.clockwork.cache.dump;

import static dev.clockwork.cache.dump.DumpFormat.BLOCK_CRC_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.BLOCK_HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.RECORD_HEADER_BYTES;
import static dev.clockwork.cache.dump.DumpFormat.TRAILER_BYTES;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.internal.Args;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

/**
 * Writes a dump ({@link DumpFormat}) to a channel through one direct buffer of a block's size:
 * records are gathered into the buffer and written a block at a time, each with its checksums;
 * a record longer than a block is streamed through the same buffer as a block of its own. The
 * Java heap holds the buffer and nothing per record: a record is copied from the caller's
 * memory into the buffer, and {@link CRC32C} reads the buffer in place.
 *
 * <p>Not thread-safe: one writer per dump. The channel should be blocking (a write of no bytes is
 * retried at once).
 */
public final class DumpWriter {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED
            .withOrder(DumpFormat.ORDER);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(DumpFormat.ORDER);

    private final WritableByteChannel out;
    /** A block: its header at 0, its records from {@link DumpFormat#BLOCK_HEADER_BYTES}. */
    private final ByteBuffer buffer;
    private final MemorySegment bufferSegment;
    private final CRC32C crc = new CRC32C();
    /** Chains the header's and every block's CRC: the trailer's whole-file check. */
    private final CRC32C fileCrc = new CRC32C();
    /** Where the next record goes in {@link #buffer}. */
    private int position = BLOCK_HEADER_BYTES;
    private int blockRecords;
    private int blockSequence;
    private long entries;
    private long valueBytes;
    private long fileBytes;
    private boolean finished;

    /**
     * Writes the file header at once.
     *
     * @param out where the dump goes; not closed here
     * @param order {@link DumpFormat#ORDER_CLOCK} or {@link DumpFormat#ORDER_RECENCY}
     * @param blockBytes the block capacity, 64 bytes to {@link DumpFormat#MAX_BLOCK_BYTES}
     * @throws IOException if the channel fails
     */
    public DumpWriter(WritableByteChannel out, int order, int blockBytes) throws IOException {
        this.out = Args.requireNonNull("out", out);
        Args.requireInRange("order", order, DumpFormat.ORDER_CLOCK, DumpFormat.ORDER_RECENCY);
        Args.requireInRange("blockBytes", blockBytes, 64, DumpFormat.MAX_BLOCK_BYTES);
        this.buffer = ByteBuffer.allocateDirect(BLOCK_HEADER_BYTES + blockBytes + BLOCK_CRC_BYTES);
        this.bufferSegment = MemorySegment.ofBuffer(buffer);
        bufferSegment.set(LONG, 0, DumpFormat.MAGIC);
        bufferSegment.set(INT, 8, DumpFormat.VERSION);
        bufferSegment.set(INT, 12, HEADER_BYTES);
        bufferSegment.set(INT, 16, order);
        bufferSegment.set(INT, 20, blockBytes);
        bufferSegment.set(INT, 24, 0);
        int headerCrc = crcOf(0, HEADER_BYTES - 4);
        bufferSegment.set(INT, HEADER_BYTES - 4, headerCrc);
        writeOut(0, HEADER_BYTES);
        chainFileCrc(headerCrc);
    }

    /**
     * Adds a record to the current block if it fits there; a record that fits no block goes out
     * at once as a block of its own (when the current block is empty: else it is refused).
     *
     * @param key0 the key's first half, as the cache's caller gave it
     * @param key1 the key's second half
     * @param charge the entry's charge, {@code >= 0}
     * @param priority the priority to load the entry with
     * @param source memory holding the value
     * @param offset where in {@code source} the value starts
     * @param length the value's length in bytes
     * @return {@code false} if the record did not fit the current block and nothing was added:
     *     {@link #flush()} and add it again
     * @throws IOException if the channel fails (only when the record goes out alone)
     */
    public boolean add(long key0, long key1, long charge, Priority priority, MemorySegment source,
                       long offset, int length) throws IOException {
        long end = (long) position + RECORD_HEADER_BYTES + length;
        if (end + BLOCK_CRC_BYTES <= buffer.capacity()) {
            putRecordHeader(position, key0, key1, charge, priority, length);
            MemorySegment.copy(source, offset, bufferSegment, position + RECORD_HEADER_BYTES,
                    length);
            position = (int) end;
            blockRecords++;
            counted(length);
            return true;
        }
        if (blockRecords > 0) {
            return false;
        }
        writeAlone(key0, key1, charge, priority, source, offset, length);
        return true;
    }

    /**
     * {@link #add}, flushing the current block first when the record does not fit it.
     *
     * @param key0 the key's first half
     * @param key1 the key's second half
     * @param charge the entry's charge
     * @param priority the priority to load the entry with
     * @param source memory holding the value
     * @param offset where in {@code source} the value starts
     * @param length the value's length in bytes
     * @throws IOException if the channel fails
     */
    public void write(long key0, long key1, long charge, Priority priority, MemorySegment source,
                      long offset, int length) throws IOException {
        if (!add(key0, key1, charge, priority, source, offset, length)) {
            flush();
            add(key0, key1, charge, priority, source, offset, length);
        }
    }

    /**
     * Writes the records gathered so far as one block; nothing if there are none.
     *
     * @throws IOException if the channel fails
     */
    public void flush() throws IOException {
        if (blockRecords == 0) {
            return;
        }
        int end = position;
        putBlockHeader(end - BLOCK_HEADER_BYTES, blockRecords);
        crc.reset();
        update(0, BLOCK_HEADER_BYTES - 4);
        update(BLOCK_HEADER_BYTES, end);
        int blockCrc = (int) crc.getValue();
        bufferSegment.set(INT, end, blockCrc);
        writeOut(0, end + BLOCK_CRC_BYTES);
        chainFileCrc(blockCrc);
        blockSequence++;
        blockRecords = 0;
        position = BLOCK_HEADER_BYTES;
    }

    /**
     * Flushes the last block and writes the trailer. The writer takes no more records.
     *
     * @throws IOException if the channel fails
     */
    public void finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("the dump is finished already");
        }
        flush();
        putBlockHeader(DumpFormat.TRAILER_MARK, 0);
        int t = BLOCK_HEADER_BYTES;
        bufferSegment.set(LONG, t, entries);
        bufferSegment.set(LONG, t + 8, valueBytes);
        bufferSegment.set(INT, t + 16, (int) fileCrc.getValue());
        bufferSegment.set(INT, t + 20, DumpFormat.END_MAGIC);
        bufferSegment.set(INT, t + 24, 0);
        bufferSegment.set(INT, t + 28, crcOf(t, t + TRAILER_BYTES - 4));
        writeOut(0, BLOCK_HEADER_BYTES + TRAILER_BYTES);
        finished = true;
    }

    /**
     * Records written so far.
     *
     * @return the number of records added
     */
    public long entries() {
        return entries;
    }

    /**
     * Value bytes written so far.
     *
     * @return the records' value lengths, summed
     */
    public long valueBytes() {
        return valueBytes;
    }

    /**
     * Bytes handed to the channel so far.
     *
     * @return the file's length once {@link #finish()} has returned
     */
    public long fileBytes() {
        return fileBytes;
    }

    // ---------------------------------------------------------------- internals

    /** One record that fits no block: its own block, the value streamed through the buffer. */
    private void writeAlone(long key0, long key1, long charge, Priority priority,
                            MemorySegment source, long offset, int length) throws IOException {
        if (length > DumpFormat.MAX_BLOCK_BYTES - RECORD_HEADER_BYTES) {
            throw new IllegalArgumentException("a value of " + length + " bytes is too long to"
                    + " dump (at most " + (DumpFormat.MAX_BLOCK_BYTES - RECORD_HEADER_BYTES) + ")");
        }
        putBlockHeader(RECORD_HEADER_BYTES + length, 1);
        putRecordHeader(BLOCK_HEADER_BYTES, key0, key1, charge, priority, length);
        crc.reset();
        update(0, BLOCK_HEADER_BYTES - 4);
        int start = BLOCK_HEADER_BYTES;
        int pos = BLOCK_HEADER_BYTES + RECORD_HEADER_BYTES;
        long copied = 0;
        for (;;) {
            int n = (int) Math.min(buffer.capacity() - pos, length - copied);
            MemorySegment.copy(source, offset + copied, bufferSegment, pos, n);
            copied += n;
            pos += n;
            update(start, pos);
            if (copied == length && pos + BLOCK_CRC_BYTES <= buffer.capacity()) {
                break;
            }
            writeOut(0, pos);
            pos = 0;
            start = 0;
            if (copied == length) {
                break;
            }
        }
        int blockCrc = (int) crc.getValue();
        bufferSegment.set(INT, pos, blockCrc);
        writeOut(0, pos + BLOCK_CRC_BYTES);
        chainFileCrc(blockCrc);
        blockSequence++;
        counted(length);
    }

    private void counted(int length) {
        entries++;
        valueBytes += length;
    }

    private void putRecordHeader(int at, long key0, long key1, long charge, Priority priority,
                                 int length) {
        bufferSegment.set(LONG, at, key0);
        bufferSegment.set(LONG, at + 8, key1);
        bufferSegment.set(LONG, at + 16, charge);
        bufferSegment.set(INT, at + 24, length);
        bufferSegment.set(INT, at + 28, priority.ordinal()); // the byte at 28, then 3 zeros
    }

    private void putBlockHeader(int bodyLength, int records) {
        bufferSegment.set(INT, 0, bodyLength);
        bufferSegment.set(INT, 4, records);
        bufferSegment.set(INT, 8, blockSequence);
        bufferSegment.set(INT, 12, crcOf(0, BLOCK_HEADER_BYTES - 4));
    }

    /** The CRC32C of the buffer's bytes {@code [from, to)}. */
    private int crcOf(int from, int to) {
        crc.reset();
        update(from, to);
        return (int) crc.getValue();
    }

    private void update(int from, int to) {
        buffer.limit(to).position(from);
        crc.update(buffer); // a direct buffer: read in place
        buffer.limit(buffer.capacity());
    }

    private void chainFileCrc(int value) {
        for (int i = 0; i < 4; i++) {
            fileCrc.update(value >>> (8 * i)); // little-endian, as the file stores it
        }
    }

    private void writeOut(int from, int to) throws IOException {
        buffer.limit(to).position(from);
        while (buffer.hasRemaining()) {
            fileBytes += out.write(buffer);
        }
        buffer.limit(buffer.capacity()).position(0);
    }
}
