#!/usr/bin/env python3
"""Decode HotSpot PrintAssembly output printed without hsdis (hex bytes) with objdump.
usage: decode.py LOG [nmethod-index or 'last' or substring of the method header]
Prints, per [MachCode] block selected, objdump's disassembly with HotSpot's annotations
(the bytecode positions, ;*getfield etc.) before the instruction they precede."""
import re, subprocess, sys, tempfile

def blocks(text):
    # each nmethod starts with a "Compiled method (c2)" header line, followed by MachCode
    parts = re.split(r'\n(?=Compiled method \(c[12]\))', text)
    for p in parts:
        if '[MachCode]' not in p:
            continue
        head = p.splitlines()[0]
        yield head, p

def decode(block):
    mc = block.split('[MachCode]', 1)[1].split('[/MachCode]', 1)[0]
    code = bytearray(); start = None; notes = {}; pending = []
    for line in mc.splitlines():
        m = re.match(r'\s*(0x[0-9a-f]+): (.*)$', line)
        if m:
            addr = int(m.group(1), 16); rest = m.group(2)
            if rest.startswith(';'):
                pending.append(rest.strip()); continue
            if start is None:
                start = addr
            # pad gaps
            while start + len(code) < addr:
                code.append(0x90)
            if pending:
                notes.setdefault(addr, []).extend(pending); pending = []
            for g in rest.split('|'):
                g = g.strip().replace(' ', '')
                if re.fullmatch(r'[0-9a-f]*', g):
                    code.extend(bytes.fromhex(g))
        else:
            s = line.strip()
            if s.startswith(';') or s.startswith('#') or s.startswith('-'):
                pending.append(s)
    return start, bytes(code), notes

def main():
    text = open(sys.argv[1], errors='replace').read()
    sel = sys.argv[2] if len(sys.argv) > 2 else None
    bl = list(blocks(text))
    if sel is None:
        for i, (h, _) in enumerate(bl):
            print(i, h)
        return
    if sel == 'last':
        chosen = [bl[-1]]
    elif sel.isdigit():
        chosen = [bl[int(sel)]]
    else:
        chosen = [b for b in bl if sel in b[0]][-1:]
    for head, block in chosen:
        start, code, notes = decode(block)
        with tempfile.NamedTemporaryFile(suffix='.bin') as f:
            f.write(code); f.flush()
            out = subprocess.run(['objdump', '-D', '-b', 'binary', '-mi386:x86-64',
                                  '--adjust-vma=%#x' % start, f.name],
                                 capture_output=True, text=True).stdout
        print(head)
        for line in out.splitlines():
            m = re.match(r'\s*([0-9a-f]+):\t', line)
            if m:
                a = int(m.group(1), 16)
                for n in notes.get(a, []):
                    print('            ' + n)
                print(line)

main()
