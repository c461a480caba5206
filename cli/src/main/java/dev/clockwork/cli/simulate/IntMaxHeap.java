package dev.clockwork.cli.simulate;

import java.util.Arrays;

/** A binary max-heap of ints, without boxing; grows as needed. */
final class IntMaxHeap {
    private int[] heap = new int[64];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void push(int value) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] >= value) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = value;
    }

    /** The largest value; the heap must not be empty. */
    int peek() {
        return heap[0];
    }

    /** Removes and returns the largest value; the heap must not be empty. */
    int pop() {
        int top = heap[0];
        int last = heap[--size];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && heap[child + 1] > heap[child]) {
                child++;
            }
            if (heap[child] <= last) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        return top;
    }
}
