#!/usr/bin/env python3
"""A PE's identities and function addresses, read from what LLVM's tools
say of it, none of it from perfdiff: the tests' truth for the Windows
symbol checks.

usage: pe_ids.py DIR
DIR holds ro.txt (llvm-readobj --file-headers --coff-debug-directory of
the exe) and app.map (lld-link's /map). Writes DIR/ids.json:
  timestamp, size: the COFF time stamp and SizeOfImage;
  pdb_guid: the 16 GUID bytes as stored (hex), age: the PDB age;
  base: the preferred load address; frames: {function: rva};
  lib: the library as samply writes it (breakpadId from GUID and age,
       codeId from time stamp and size).
"""
import json
import re
import sys


def main():
    d = sys.argv[1]
    ro = open(d + "/ro.txt").read()
    ts = int(re.search(r"TimeDateStamp: .*\(0x([0-9A-F]+)\)", ro).group(1), 16)
    size = int(re.search(r"SizeOfImage: (\d+)", ro).group(1))
    g = [int(x, 16) for x in
         re.search(r"PDBGUID: \(([0-9A-F ]+)\)", ro).group(1).split()]
    age = int(re.search(r"PDBAge: (\d+)", ro).group(1))
    # the GUID as text: its first three fields little-endian
    guid = "%08X%04X%04X" % (g[0] | g[1] << 8 | g[2] << 16 | g[3] << 24,
                              g[4] | g[5] << 8, g[6] | g[7] << 8)
    guid += "".join("%02X" % b for b in g[8:])
    frames, base = {}, None
    for line in open(d + "/app.map"):
        m = re.match(r"\s*Preferred load address is ([0-9a-f]+)", line)
        if m:
            base = int(m.group(1), 16)
        m = re.match(r"\s*0001:[0-9a-f]+\s+(\w+)\s+([0-9a-f]{16})\s", line)
        if m:
            frames[m.group(1)] = int(m.group(2), 16) - base
    lib = {"name": "app.exe", "path": "C:\\build\\app.exe",
           "debugName": "app.pdb", "debugPath": "C:\\build\\app.pdb",
           "breakpadId": guid + "%X" % age, "codeId": "%08X%x" % (ts, size),
           "arch": "x86_64"}
    json.dump({"timestamp": ts, "size": size,
               "pdb_guid": "".join("%02x" % b for b in g), "age": age,
               "base": base, "frames": frames, "lib": lib},
              open(d + "/ids.json", "w"))


main()
