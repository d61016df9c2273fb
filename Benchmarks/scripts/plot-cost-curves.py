#!/usr/bin/env python3
"""Draws Benchmarks/results/cost-curves.csv (written by `quarry-bench --curve`)
as Benchmarks/results/cost-curves.png: one log-log chart per workload, cost
per row (ns) against rows, one line per contender.

Only the Python 3 standard library: a small RGB canvas, a PNG writer (zlib +
struct) and a 5x7 bitmap font for the labels.

    python3 Benchmarks/scripts/plot-cost-curves.py [input.csv [output.png]]
"""

import csv
import math
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = os.path.join(HERE, "..", "results", "cost-curves.csv")
DEFAULT_PNG = os.path.join(HERE, "..", "results", "cost-curves.png")

# --- 5x7 bitmap font (upper-case letters, digits, a little punctuation) ------

FONT = {
    "A": ["01110", "10001", "10001", "11111", "10001", "10001", "10001"],
    "B": ["11110", "10001", "10001", "11110", "10001", "10001", "11110"],
    "C": ["01110", "10001", "10000", "10000", "10000", "10001", "01110"],
    "D": ["11110", "10001", "10001", "10001", "10001", "10001", "11110"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "F": ["11111", "10000", "10000", "11110", "10000", "10000", "10000"],
    "G": ["01110", "10001", "10000", "10111", "10001", "10001", "01111"],
    "H": ["10001", "10001", "10001", "11111", "10001", "10001", "10001"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "J": ["00111", "00010", "00010", "00010", "00010", "10010", "01100"],
    "K": ["10001", "10010", "10100", "11000", "10100", "10010", "10001"],
    "L": ["10000", "10000", "10000", "10000", "10000", "10000", "11111"],
    "M": ["10001", "11011", "10101", "10101", "10001", "10001", "10001"],
    "N": ["10001", "10001", "11001", "10101", "10011", "10001", "10001"],
    "O": ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "Q": ["01110", "10001", "10001", "10001", "10101", "10010", "01101"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
    "S": ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "U": ["10001", "10001", "10001", "10001", "10001", "10001", "01110"],
    "V": ["10001", "10001", "10001", "10001", "10001", "01010", "00100"],
    "W": ["10001", "10001", "10001", "10101", "10101", "10101", "01010"],
    "X": ["10001", "10001", "01010", "00100", "01010", "10001", "10001"],
    "Y": ["10001", "10001", "01010", "00100", "00100", "00100", "00100"],
    "Z": ["11111", "00001", "00010", "00100", "01000", "10000", "11111"],
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    " ": ["00000"] * 7,
    "-": ["00000", "00000", "00000", "11111", "00000", "00000", "00000"],
    "+": ["00000", "00100", "00100", "11111", "00100", "00100", "00000"],
    ".": ["00000", "00000", "00000", "00000", "00000", "01100", "01100"],
    ",": ["00000", "00000", "00000", "00000", "01100", "00100", "01000"],
    ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"],
    ";": ["00000", "01100", "01100", "00000", "01100", "00100", "01000"],
    "/": ["00001", "00001", "00010", "00100", "01000", "10000", "10000"],
    "(": ["00010", "00100", "01000", "01000", "01000", "00100", "00010"],
    ")": ["01000", "00100", "00010", "00010", "00010", "00100", "01000"],
    "=": ["00000", "00000", "11111", "00000", "11111", "00000", "00000"],
    "%": ["11000", "11001", "00010", "00100", "01000", "10011", "00011"],
    "?": ["01110", "10001", "00001", "00010", "00100", "00000", "00100"],
}


class Canvas:
    def __init__(self, width, height, background=(255, 255, 255)):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(background) * (width * height))

    def set(self, x, y, color):
        if 0 <= x < self.width and 0 <= y < self.height:
            i = (y * self.width + x) * 3
            self.pixels[i:i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(max(0, y0), min(self.height, y1)):
            for x in range(max(0, x0), min(self.width, x1)):
                self.set(x, y, color)

    def line(self, x0, y0, x1, y1, color, width=1, dashed=False):
        """A straight line (Bresenham), `width` pixels thick."""
        x0, y0, x1, y1 = int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        step = 0
        half = width // 2
        while True:
            if not dashed or (step // 4) % 2 == 0:
                for ox in range(-half, width - half):
                    for oy in range(-half, width - half):
                        self.set(x0 + ox, y0 + oy, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy
            step += 1

    def dot(self, cx, cy, radius, color):
        cx, cy = int(round(cx)), int(round(cy))
        for y in range(-radius, radius + 1):
            for x in range(-radius, radius + 1):
                if x * x + y * y <= radius * radius + radius:
                    self.set(cx + x, cy + y, color)

    def text(self, x, y, string, color=(0, 0, 0), scale=1):
        """Draws `string` with its top-left corner at (x, y); returns its width."""
        cursor = x
        for char in string.upper():
            glyph = FONT.get(char, FONT["?"])
            for row, bits in enumerate(glyph):
                for column, bit in enumerate(bits):
                    if bit == "1":
                        self.rect(cursor + column * scale, y + row * scale,
                                  cursor + (column + 1) * scale, y + (row + 1) * scale, color)
            cursor += 6 * scale
        return cursor - x

    def write_png(self, path):
        raw = b"".join(b"\x00" + bytes(self.pixels[y * self.width * 3:(y + 1) * self.width * 3])
                       for y in range(self.height))

        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)  # 8-bit RGB
        with open(path, "wb") as file:
            file.write(b"\x89PNG\r\n\x1a\n")
            file.write(chunk(b"IHDR", header))
            file.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            file.write(chunk(b"IEND", b""))


def text_width(string, scale=1):
    return len(string) * 6 * scale - scale


def short_number(value):
    """1000 -> 1K, 1000000 -> 1M, 200 -> 200, 0.5 -> 0.5."""
    for factor, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "K")):
        if value >= factor:
            number = value / factor
            return ("%g" % number) + suffix
    return "%g" % value


COLORS = {
    "raw": (40, 40, 40),
    "grdb-codable": (230, 120, 20),
    "quarry-codable": (30, 100, 210),
    "quarry-instrumented": (40, 160, 70),
    "quarry-traced": (160, 60, 170),
}
EXTRA_COLORS = [(200, 40, 40), (0, 150, 150), (120, 120, 0)]


def load(path):
    data = {}  # workload -> contender -> [(rows, ns_per_row)]
    order = []
    contenders = []
    with open(path, newline="") as file:
        for record in csv.DictReader(file):
            workload, contender = record["workload"], record["contender"]
            try:
                rows, ns = int(record["rows"]), float(record["ns_per_row"])
            except ValueError:
                continue
            if not (ns > 0):
                continue
            if workload not in data:
                data[workload] = {}
                order.append(workload)
            if contender not in contenders:
                contenders.append(contender)
            data[workload].setdefault(contender, []).append((rows, ns))
    return order, contenders, data


def y_ticks(low, high):
    """1-2-5 ticks from `low` to `high`; labels on decades only if the range is wide."""
    ticks = []
    exponent = math.floor(math.log10(low))
    while 10 ** exponent <= high * 1.0001:
        for mantissa in (1, 2, 5):
            value = mantissa * 10 ** exponent
            if low * 0.9999 <= value <= high * 1.0001:
                ticks.append(value)
        exponent += 1
    wide = math.log10(high / low) > 2.2
    return [(value, (not wide) or abs(math.log10(value) - round(math.log10(value))) < 1e-9) for value in ticks]


def plot(order, contenders, data, path):
    columns = min(4, max(1, len(order)))
    grid_rows = (len(order) + columns - 1) // columns
    panel_width, panel_height = 440, 330
    top = 96
    width = columns * panel_width + 20
    height = top + grid_rows * panel_height + 10
    canvas = Canvas(width, height)

    canvas.text(14, 12, "QUARRY-BENCH COST CURVES: NS PER ROW (Y, LOG) AGAINST ROWS IN THE TABLE (X, LOG), MEDIANS", (0, 0, 0), 2)
    canvas.text(14, 34, "PER ROW = PER ROW INSERTED, FETCHED, UPDATED OR DELETED; WORKLOAD 3: PER QUERY; "
                "WORKLOAD 4: PER QUERY AND ROW OF THE TABLE", (70, 70, 70), 2)
    colors = {}
    extra = iter(EXTRA_COLORS)
    for contender in contenders:
        colors[contender] = COLORS.get(contender) or next(extra, (100, 100, 100))
    x = 14
    for contender in contenders:
        canvas.rect(x, 68, x + 28, 72, colors[contender])
        canvas.dot(x + 14, 70, 4, colors[contender])
        x += 36 + canvas.text(x + 34, 63, contender, colors[contender], 2) + 20

    all_rows = sorted({rows for workload in data.values() for points in workload.values() for rows, _ in points})
    x_low, x_high = all_rows[0], all_rows[-1]
    if x_low == x_high:
        x_low, x_high = x_low / 10, x_high * 10

    for index, workload in enumerate(order):
        origin_x = 10 + (index % columns) * panel_width
        origin_y = top + (index // columns) * panel_height
        left, right = origin_x + 66, origin_x + panel_width - 30
        upper, lower = origin_y + 34, origin_y + panel_height - 34
        values = [ns for points in data[workload].values() for _, ns in points]
        y_low = 10 ** math.floor(math.log10(min(values)))
        y_high = 10 ** math.ceil(math.log10(max(values)))
        # Tighten to 1-2-5 steps, so that flat curves use the height.
        for mantissa in (5, 2):
            if y_low * mantissa <= min(values):
                y_low *= mantissa
                break
        for mantissa in (5, 2):
            if y_high / mantissa >= max(values):
                y_high /= mantissa
                break
        if y_high <= y_low:
            y_high = y_low * 10

        def px(rows):
            return left + (math.log10(rows) - math.log10(x_low)) / (math.log10(x_high) - math.log10(x_low)) * (right - left)

        def py(ns):
            # 3% of the height free above and below the range, so that points on its ends show.
            span = lower - upper
            fraction = (math.log10(ns) - math.log10(y_low)) / (math.log10(y_high) - math.log10(y_low))
            return lower - span * 0.03 - fraction * span * 0.94

        canvas.text(left, origin_y + 8, workload, (0, 0, 0), 2)
        # Grid and tick labels.
        for value, labeled in y_ticks(y_low, y_high):
            y = int(round(py(value)))
            canvas.line(left, y, right, y, (225, 225, 225) if labeled else (240, 240, 240))
            if labeled:
                label = short_number(value)
                canvas.text(left - 6 - text_width(label, 2), y - 7, label, (60, 60, 60), 2)
        for rows in all_rows:
            x = int(round(px(rows)))
            canvas.line(x, upper, x, lower, (225, 225, 225))
            label = short_number(rows)
            canvas.text(x - text_width(label, 2) // 2, lower + 8, label, (60, 60, 60), 2)
        canvas.line(left, upper, left, lower, (0, 0, 0))
        canvas.line(left, lower, right, lower, (0, 0, 0))
        # One polyline per contender.
        for contender in contenders:
            points = sorted(data[workload].get(contender, []))
            for (r0, n0), (r1, n1) in zip(points, points[1:]):
                canvas.line(px(r0), py(n0), px(r1), py(n1), colors[contender], width=2)
            for rows, ns in points:
                canvas.dot(px(rows), py(ns), 3, colors[contender])
    canvas.write_png(path)


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CSV
    target = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_PNG
    order, contenders, data = load(source)
    if not order:
        sys.exit("no samples in %s" % source)
    plot(order, contenders, data, target)
    print("wrote %s" % os.path.normpath(target))


if __name__ == "__main__":
    main()
