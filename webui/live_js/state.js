export const FRAMES = (window.__dpvizFrames = window.__dpvizFrames || new Map());
export const CHARTS = (window.__dpvizCharts = window.__dpvizCharts || new Set());
export const TEXTS = (window.__dpvizTexts = window.__dpvizTexts || new Set());
